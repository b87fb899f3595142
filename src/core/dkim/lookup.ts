// Scans DKIM selectors of a domain through the Resolver port (DNS I/O only via the port), bounded parallelism.
import type { Finding } from "../types";
import type { Resolver } from "../dns/types";
import { hex } from "./bytes";
import { analyzeKey, type KeyAnalysis } from "./key";
import { looksLikeKeyRecord } from "./key-record";
import { attributeProvider, candidateSelectors, isValidSelector } from "./selectors";

export type SelectorStatus = "active" | "invalid" | "revoked" | "missing" | "temperror";

export interface SelectorEntry {
  status: SelectorStatus;
  delegated_to: string | null; // first CNAME target of the lookup chain
  provider: string | null; // attributed from the CNAME chain only, never from the selector name
  key: Omit<KeyAnalysis, "material" | "findings"> | null;
  record: string | null;
  issues: Finding[];
}

export interface SelectorScan {
  domain: string;
  status: "found" | "not_found" | "temperror";
  score: number; // 0–100
  summary: string;
  scanned: number;
  /** A random improbable selector answered: the zone has a wildcard and results are unreliable. */
  wildcard: boolean;
  /** The wildcard probe itself failed (temperror): whether the zone has a wildcard is unknown. */
  wildcardUnknown: boolean;
  selectors: Record<string, SelectorEntry>;
  missing: Record<string, string>;
  issues: Finding[];
}

export const SCAN_CONCURRENCY = 6;

/**
 * `selectors` null means the curated list: the selectors of `opts.providers` (inferred from MX and
 * SPF with inferProviders) first, then every provider's, then generic names (§4.7 heuristics).
 */
export async function lookupSelectors(
  domain: string,
  selectors: string[] | null,
  resolver: Resolver,
  opts: { providers?: string[] } = {},
): Promise<SelectorScan> {
  const d = domain.toLowerCase().replace(/\.$/, "");
  const wanted = [...new Set((selectors ?? candidateSelectors(opts.providers)).map((s) => s.toLowerCase()))];
  const issues: Finding[] = [];
  const names = wanted.filter(isValidSelector);
  for (const s of wanted.filter((x) => !isValidSelector(x))) {
    issues.push({ rule: "dkim.selector.invalid_name", severity: "Info", description: `"${s}" is not a valid selector name and was skipped.`, fix: null });
  }

  const probe = `dkimprobe-${hex(crypto.getRandomValues(new Uint8Array(8)))}`;
  const [probeEntry, ...entries] = await mapBounded([probe, ...names], SCAN_CONCURRENCY, (s) => checkSelector(d, s, resolver));
  const wildcard = probeEntry !== undefined && (probeEntry.status === "active" || probeEntry.status === "invalid" || probeEntry.status === "revoked");
  if (wildcard) {
    issues.push({
      rule: "dkim.selector.wildcard",
      severity: "Medium",
      description: `A random selector (${probe}) returned a TXT record: *._domainkey.${d} is a wildcard, so selector results are unreliable.`,
      fix: "Remove the wildcard record under _domainkey.",
    });
  }

  const found: Record<string, SelectorEntry> = {};
  const missing: Record<string, string> = {};
  names.forEach((s, i) => {
    const e = entries[i];
    if (!e) return;
    if (e.status === "missing") missing[s] = (e.issues[0]?.description ?? "no record").slice(s.length + 2);
    else found[s] = e;
  });
  const all = Object.values(found);
  const active = all.filter((e) => e.status === "active");
  const temp = all.filter((e) => e.status === "temperror").length;
  for (const e of all) issues.push(...e.issues);

  const status = active.length > 0 ? "found" : temp > 0 ? "temperror" : "not_found";
  let score = active.length === 0 ? 0 : Math.max(...active.map(keyScore));
  if (wildcard) score = Math.max(0, score - 20);
  // docs/decisions.md D19: *._domainkey cannot be enumerated, so never claim "no DKIM".
  const summary =
    active.length > 0
      ? `${active.length} active DKIM key(s) found among ${names.length} selectors checked: ${Object.keys(found)
          .filter((s) => found[s]?.status === "active")
          .join(", ")}`
      : temp > 0
        ? `DKIM key not found among ${names.length} selectors checked; ${temp} lookups failed temporarily`
        : `DKIM key not found among ${names.length} selectors checked`;
  return {
    domain: d,
    status,
    score,
    summary,
    scanned: names.length,
    wildcard,
    wildcardUnknown: probeEntry?.status === "temperror",
    selectors: found,
    missing,
    issues,
  };
}

/** Score of one active key: 100, less for weak size, testing mode or sha1-only h=. */
function keyScore(e: SelectorEntry): number {
  let s = 100;
  for (const f of e.issues) {
    if (f.rule === "dkim.key.weak") s -= 30;
    else if (f.rule === "dkim.key.testing") s -= 10;
    else if (f.rule === "dkim.key.sha1_only") s -= 40;
  }
  return Math.max(0, s);
}

export async function checkSelector(domain: string, selector: string, resolver: Resolver): Promise<SelectorEntry> {
  const e: SelectorEntry = { status: "missing", delegated_to: null, provider: null, key: null, record: null, issues: [] };
  const issue = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null) =>
    e.issues.push({ rule, severity, description: `${selector}: ${description}`, fix });
  const l = await resolver.query(`${selector}._domainkey.${domain}`, "TXT");
  if (l.kind === "temperror") {
    e.status = "temperror";
    issue("dkim.selector.temperror", "Info", `lookup failed temporarily (${l.reason})`);
    return e;
  }
  e.delegated_to = l.chain[0] ?? null;
  for (const t of l.chain) e.provider ??= attributeProvider(t);
  if (l.kind !== "records") {
    if (l.chain.length > 0) {
      // A CNAME to a provider that no longer serves the key: a classic breakage after offboarding.
      e.status = "invalid";
      issue(
        "dkim.selector.dangling_cname",
        "High",
        `CNAME to ${l.chain[l.chain.length - 1]} has no key (${l.kind})`,
        "Remove the stale CNAME or re-enable DKIM at the provider.",
      );
    } else {
      issue("dkim.selector.missing", "Info", l.kind === "nxdomain" ? "no such name" : "no TXT record");
    }
    return e;
  }
  const keys = l.records.filter(looksLikeKeyRecord);
  e.record = keys[0] ?? l.records[0] ?? null;
  if (keys.length === 0) {
    e.status = "invalid";
    issue("dkim.key.not_a_key", "High", "the TXT record at the selector is not a DKIM key record");
    return e;
  }
  if (keys.length > 1) {
    e.status = "invalid";
    issue(
      "dkim.key.multiple_records",
      "High",
      `${keys.length} key records at one selector; verifiers' results are undefined (RFC 6376 §3.6.2.2)`,
      "Keep exactly one TXT record.",
    );
    return e;
  }
  const a = await analyzeKey(keys[0] ?? "");
  if ("error" in a) {
    e.status = "invalid";
    issue("dkim.key.syntax", "High", a.error, "Republish the record as v=DKIM1; k=…; p=…");
    return e;
  }
  const { material: _m, findings, ...key } = a;
  e.key = key;
  e.issues.push(...findings.map((f) => ({ ...f, description: `${selector}: ${f.description}` })));
  e.status = a.revoked ? "revoked" : a.usable ? "active" : "invalid";
  return e;
}

/** Run `fn` over items with at most `limit` in flight, keeping the input order in the output. */
async function mapBounded<T, R>(items: T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
