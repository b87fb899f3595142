// Plans the writes, events and alert for one looked-up selector (docs/decisions.md D18 status
// transitions and key history). Builds drizzle statements only; the caller runs them. No I/O here.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SelectorEntry } from "../../core/dkim";
import type { Finding, Severity } from "../../core/types";
import type { Db } from "../../db/client";
import { dkimKeys, dkimSelectors } from "../../db/schema";
import type { AlertDraft } from "../alerts/types";
import type { DomainRow } from "../domains/get-domain";
import type { EventDraft } from "../events/emit";

export type SelectorRow = typeof dkimSelectors.$inferSelect;
export type SelectorStatus = SelectorRow["status"];
export type SelectorSource = SelectorRow["source"];
type Health = SelectorRow["health"];

/** A selector that answers with a record (good, bad or revoked) is published. */
export const PUBLISHED: ReadonlySet<SelectorStatus> = new Set(["active", "invalid", "revoked"]);

export interface SelectorPlan {
  statements: BatchItem<"sqlite">[];
  events: EventDraft[];
  alert: AlertDraft | null;
  /** Status after the writes; null when nothing is (or stays) stored. */
  status: SelectorStatus | null;
  issues: Finding[];
}

const RANK: Record<Severity, number> = { Critical: 0, High: 1, Medium: 2, Low: 3, Info: 4 };
const worst = (fs: Finding[]): Severity | null => fs.reduce<Severity | null>((w, f) => (w === null || RANK[f.severity] < RANK[w] ? f.severity : w), null);

/** fail: no usable record or a High/Critical finding; warning: revoked, pending or a Medium/Low finding. */
export function healthOf(status: SelectorStatus, issues: Finding[]): Health {
  const w = worst(issues);
  if (status === "missing" || status === "invalid" || w === "Critical" || w === "High") return "fail";
  if (status === "revoked" || status === "pending" || w === "Medium" || w === "Low") return "warning";
  return "pass";
}

export interface PlanInput {
  db: Db;
  domain: DomainRow;
  selector: string;
  /** The stored row, or null for a selector seen for the first time (stored as `source`). */
  row: SelectorRow | null;
  entry: SelectorEntry;
  now: Date;
  source?: SelectorSource;
  /** Provider to record when the CNAME chain names none (e.g. inferred from MX/SPF). */
  providerHint?: string | null;
}

/** A temperror plans nothing: the selector keeps its state (never "missing", never an event). */
export function planSelector(p: PlanInput): SelectorPlan {
  const { db, domain, selector, row, entry: e, now } = p;
  const out: SelectorPlan = { statements: [], events: [], alert: null, status: row?.status ?? null, issues: row ? issuesOf(row) : [] };
  if (e.status === "temperror") return out;
  const ev = (type: EventDraft["type"], data: Record<string, unknown>) =>
    out.events.push({ type, teamId: domain.teamId, domain: { id: domain.id, name: domain.name }, data: { selector, ...data } });
  const keyWhere = (fp: string) => and(eq(dkimKeys.selectorId, row?.id ?? -1), eq(dkimKeys.fingerprint, fp), isNull(dkimKeys.retiredAt));
  const retire = (fp: string, reason: "rotated" | "revoked" | "removed") =>
    out.statements.push(db.update(dkimKeys).set({ retiredAt: now, retiredReason: reason }).where(keyWhere(fp)));
  const wasPublished = row !== null && PUBLISHED.has(row.status);
  const oldFp = wasPublished ? (row?.keyFingerprint ?? null) : null;

  if (e.status === "missing") {
    // Never-published discovered candidates are not stored; a known selector becomes missing.
    if (row === null || row.status === "missing") return out;
    out.status = "missing";
    out.issues = e.issues;
    out.statements.push(
      db
        .update(dkimSelectors)
        .set({
          status: "missing",
          health: "fail",
          missingSince: row.missingSince ?? now,
          record: null,
          delegatedTo: null,
          keyType: null,
          keyBits: null,
          keyFingerprint: null,
          keyTesting: null,
          keyFirstSeenAt: null,
          staleNotifiedAt: null,
          issues: e.issues,
        })
        .where(eq(dkimSelectors.id, row.id)),
    );
    if (oldFp) retire(oldFp, "removed");
    if (wasPublished) ev("dkim.selector.removed", { fingerprint: oldFp, last_seen_at: row.lastSeenAt?.toISOString() ?? null });
    return out;
  }

  // Published: active, invalid or revoked.
  const newFp = e.key?.fingerprint ?? null;
  const sameKey = newFp !== null && newFp === oldFp;
  const rotated = wasPublished && newFp !== null && !sameKey;
  const rotations = (row?.rotations ?? 0) + (rotated ? 1 : 0);
  const health = healthOf(e.status, e.issues);
  const values = {
    status: e.status,
    health,
    provider: e.provider ?? p.providerHint ?? row?.provider ?? null,
    delegatedTo: e.delegated_to,
    record: e.record,
    keyType: e.key?.type ?? null,
    keyBits: e.key?.bits ?? null,
    keyFingerprint: newFp,
    keyTesting: e.key?.testing ?? null,
    keyFirstSeenAt: newFp === null ? null : sameKey ? (row?.keyFirstSeenAt ?? now) : now,
    staleNotifiedAt: sameKey ? (row?.staleNotifiedAt ?? null) : null,
    rotations,
    issues: e.issues,
    lastSeenAt: now,
    missingSince: null,
  };
  out.status = e.status;
  out.issues = e.issues;
  if (row === null) {
    out.statements.push(
      db
        .insert(dkimSelectors)
        .values({ domainId: domain.id, selector, source: p.source ?? "discovered", firstSeenAt: now, ...values })
        .onConflictDoNothing(),
    );
  } else {
    out.statements.push(
      db
        .update(dkimSelectors)
        .set({ ...values, firstSeenAt: row.firstSeenAt ?? now })
        .where(eq(dkimSelectors.id, row.id)),
    );
  }

  if (oldFp !== null && !sameKey) retire(oldFp, e.status === "revoked" ? "revoked" : newFp ? "rotated" : "removed");
  if (newFp !== null && e.key) {
    const selectorId = row
      ? row.id
      : sql<number>`(select ${dkimSelectors.id} from ${dkimSelectors} where ${dkimSelectors.domainId} = ${domain.id} and ${dkimSelectors.selector} = ${selector})`;
    const record = e.record ?? "";
    out.statements.push(
      db
        .insert(dkimKeys)
        .values({ selectorId, fingerprint: newFp, type: e.key.type, bits: e.key.bits, record, firstSeenAt: now, lastSeenAt: now })
        .onConflictDoUpdate({ target: [dkimKeys.selectorId, dkimKeys.fingerprint], set: { lastSeenAt: now, record, retiredAt: null, retiredReason: null } }),
    );
  }

  const key = { fingerprint: newFp, type: e.key?.type ?? null, bits: e.key?.bits ?? null };
  if (!wasPublished) {
    ev("dkim.selector.added", {
      source: row?.source ?? p.source ?? "discovered",
      status: e.status,
      ...key,
      provider: values.provider,
      delegated_to: e.delegated_to,
    });
  } else if (e.status === "revoked" && row?.status !== "revoked") {
    ev("dkim.key.revoked", { fingerprint: oldFp });
  } else if (rotated) {
    ev("dkim.key.rotated", { old_fingerprint: oldFp, new_fingerprint: newFp, type: key.type, bits: key.bits });
  } else if (row !== null && (row.record !== e.record || row.status !== e.status)) {
    // Same key (or still none): the record text or its verdict changed (flags, tags, h=, t=...).
    ev("dkim.record.changed", { fingerprint: newFp, old_record: row.record, new_record: e.record, old_status: row.status, new_status: e.status });
  }

  const serious = e.issues.filter((f) => f.severity === "Critical" || f.severity === "High");
  const sev = worst(serious);
  if (sev) {
    out.alert = {
      teamId: domain.teamId,
      domain: { id: domain.id, name: domain.name },
      kind: "dkim",
      subject: `dkim:${selector}`,
      severity: sev,
      title: `DKIM selector ${selector}: ${serious.length === 1 ? serious[0]?.rule : `${serious.length} serious findings`}`,
      body: serious.map((f) => f.description).join("\n"),
    };
  }
  return out;
}

/** The stored findings of a row (json column). */
export function issuesOf(row: SelectorRow): Finding[] {
  return Array.isArray(row.issues) ? (row.issues as Finding[]) : [];
}
