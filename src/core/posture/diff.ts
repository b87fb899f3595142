// Differences between two posture snapshots with a severity each; unknown (temperror/stale) parts yield none. No I/O.
import type { Severity } from "../types";
import type { PartStatus, PostureCategory } from "./types";

export type FieldValue = string | number | boolean | null | string[];

export interface PartSnapshot {
  /** "stale": the last known good value re-used after a temperror; unknown, like temperror. */
  status: PartStatus | "stale";
  record: string | null;
  /** Parsed fields worth comparing, e.g. dmarc {p, sp, pct, rua}, mta_sts {id, mode, mx}, dkim {"selector:s1": fingerprint}. */
  fields?: Record<string, FieldValue>;
}

export type PostureSnapshot = Partial<Record<PostureCategory, PartSnapshot>>;

export interface PostureChange {
  category: PostureCategory;
  field: string;
  before: FieldValue;
  after: FieldValue;
  severity: Severity;
}

const unknown = (p: PartSnapshot | undefined): boolean => p === undefined || p.status === "temperror" || p.status === "stale";

const POLICY_RANK: Record<string, number> = { none: 0, quarantine: 1, reject: 2 };
const MODE_RANK: Record<string, number> = { none: 0, testing: 1, enforce: 2 };
/** SPF `all` qualifier strength (RFC 7208 §4.6.2): "+" passes everyone, "-" fails everyone else. */
const ALL_RANK: Record<string, number> = { "+all": 0, "?all": 1, none: 1, "~all": 2, "-all": 3 };

/** Losing a part entirely: DMARC/SPF/MX/DKIM carry delivery or spoofing risk, the rest less. */
const REMOVAL: Record<PostureCategory, Severity> = {
  dmarc: "High",
  spf: "High",
  mx: "High",
  dkim: "High",
  mta_sts: "Medium",
  tls_rpt: "Low",
  bimi: "Low",
  blacklist: "Info",
};
/** Record text changed with the same status (field rules below may add sharper entries). */
const RECORD_CHANGE: Record<PostureCategory, Severity> = {
  spf: "Medium",
  dmarc: "Low",
  mx: "Medium",
  dkim: "Medium",
  mta_sts: "Low",
  tls_rpt: "Low",
  bimi: "Low",
  blacklist: "Info",
};

const same = (a: FieldValue | undefined, b: FieldValue | undefined): boolean =>
  JSON.stringify(Array.isArray(a) ? [...a].sort() : (a ?? null)) === JSON.stringify(Array.isArray(b) ? [...b].sort() : (b ?? null));

function rankChange(ranks: Record<string, number>, before: FieldValue, after: FieldValue, weakened: Severity): Severity {
  const b = ranks[String(before ?? "none").toLowerCase()] ?? 0;
  const a = ranks[String(after ?? "none").toLowerCase()] ?? 0;
  return a < b ? weakened : "Info";
}

function fieldSeverity(cat: PostureCategory, field: string, before: FieldValue, after: FieldValue): Severity {
  if (cat === "dmarc") {
    if (field === "p" || field === "sp" || field === "np") return rankChange(POLICY_RANK, before, after, "High");
    if (field === "pct") return Number(after ?? 100) < Number(before ?? 100) ? "Medium" : "Info";
    if (field === "rua") return "Medium";
  }
  if (cat === "spf" && field === "all") return rankChange(ALL_RANK, before, after, "High");
  if (cat === "mta_sts") {
    if (field === "mode") return rankChange(MODE_RANK, before, after, "High");
    if (field === "mx") return "Medium";
    if (field === "id") return "Info";
  }
  if (cat === "dkim" && field.startsWith("selector:")) return after === null ? "Medium" : before === null ? "Info" : "Medium";
  if (cat === "mx" && field === "hosts") return "Medium";
  return "Low";
}

function diffBlacklist(prev: PartSnapshot, curr: PartSnapshot): PostureChange[] {
  const list = (p: PartSnapshot, k: string): string[] => {
    const v = p.fields?.[k];
    return Array.isArray(v) ? v : [];
  };
  const before = new Set(list(prev, "listed"));
  const after = new Set(list(curr, "listed"));
  const cleared = new Set(list(curr, "cleared"));
  const out: PostureChange[] = [];
  for (const k of after) if (!before.has(k)) out.push({ category: "blacklist", field: k, before: "not_listed", after: "listed", severity: "High" });
  // Only a query that answered "not listed" proves a delisting. A listing that is now unknown (refused
  // query, temperror) or was not asked at all (its MX address did not resolve this time) is no change.
  for (const k of before) {
    if (!after.has(k) && cleared.has(k)) out.push({ category: "blacklist", field: k, before: "listed", after: "not_listed", severity: "Info" });
  }
  return out;
}

export function diffPostures(previous: PostureSnapshot, current: PostureSnapshot): PostureChange[] {
  const out: PostureChange[] = [];
  for (const cat of Object.keys(current) as PostureCategory[]) {
    const prev = previous[cat];
    const curr = current[cat];
    if (prev === undefined || curr === undefined || unknown(prev) || unknown(curr)) continue;
    if (cat === "blacklist") {
      out.push(...diffBlacklist(prev, curr));
      continue;
    }
    if (prev.status !== curr.status) {
      const severity: Severity = curr.status === "present" ? "Info" : prev.status === "present" ? REMOVAL[cat] : "Medium";
      out.push({ category: cat, field: "status", before: prev.status, after: curr.status, severity });
    }
    if (prev.record !== curr.record && prev.record !== null && curr.record !== null) {
      out.push({ category: cat, field: "record", before: prev.record, after: curr.record, severity: RECORD_CHANGE[cat] });
    }
    const names = new Set([...Object.keys(prev.fields ?? {}), ...Object.keys(curr.fields ?? {})]);
    for (const field of names) {
      const b = prev.fields?.[field] ?? null;
      const a = curr.fields?.[field] ?? null;
      if (same(b, a)) continue;
      out.push({ category: cat, field, before: b, after: a, severity: fieldSeverity(cat, field, b, a) });
    }
    // RFC 8461 §3.1: senders re-fetch only when id changes, so a changed policy under the old id is drift.
    if (cat === "mta_sts" && same(prev.fields?.id, curr.fields?.id) && !same(prev.fields?.policy, curr.fields?.policy)) {
      out.push({ category: cat, field: "id_unchanged", before: prev.fields?.id ?? null, after: curr.fields?.id ?? null, severity: "High" });
    }
  }
  return out;
}
