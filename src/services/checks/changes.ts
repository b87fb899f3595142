// Turns a check's changes into diff rows' values, event drafts and alert drafts. No I/O.
import type { FieldValue, PostureChange, PostureSnapshot } from "../../core/posture/diff";
import { changeSentence } from "../../core/posture/change-words";
import { RECORD_PARTS } from "../../core/posture/registry";
import type { PostureCategory } from "../../core/posture/types";
import type { Severity } from "../../core/types";
import type { AlertDraft } from "../alerts/types";
import type { EventDraft } from "../events/emit";

/** The parts whose changes raise dns.record.changed, each with its own record_type (docs/events.md). */
export const RECORD_CATEGORIES = RECORD_PARTS.filter((p) => p.recordEvent).map((p) => p.id as PostureCategory);
const RANK: Record<Severity, number> = { Critical: 4, High: 3, Medium: 2, Low: 1, Info: 0 };
export const atLeast = (s: Severity, floor: Severity) => RANK[s] >= RANK[floor];

export const fieldText = (v: FieldValue | undefined): string | null =>
  v === null || v === undefined ? null : Array.isArray(v) ? JSON.stringify(v) : String(v);

/** DKIM inventory events as posture changes (field `selector:<name>`), so that diffs and posture.changed list them too. */
export function dkimChanges(events: EventDraft[]): PostureChange[] {
  const out: PostureChange[] = [];
  for (const e of events) {
    const d = e.data ?? {};
    const field = `selector:${String(d.selector)}`;
    const v = (k: string): FieldValue => (typeof d[k] === "string" ? (d[k] as string) : null);
    if (e.type === "dkim.selector.added") out.push({ category: "dkim", field, before: null, after: v("fingerprint") ?? String(d.status), severity: "Info" });
    if (e.type === "dkim.selector.removed") out.push({ category: "dkim", field, before: v("fingerprint"), after: null, severity: "Medium" });
    if (e.type === "dkim.key.rotated") out.push({ category: "dkim", field, before: v("old_fingerprint"), after: v("new_fingerprint"), severity: "Medium" });
    if (e.type === "dkim.key.revoked") out.push({ category: "dkim", field, before: v("fingerprint"), after: "revoked", severity: "High" });
    if (e.type === "dkim.record.changed")
      out.push({ category: "dkim", field: `record:${String(d.selector)}`, before: v("old_record"), after: v("new_record"), severity: "Low" });
  }
  return out;
}

const change = (c: PostureChange) => ({ category: c.category, field: c.field, before: c.before, after: c.after, severity: c.severity });

export interface ChangeContext {
  teamId: number;
  domain: { id: number; name: string };
  checkId: string;
  previous: PostureSnapshot;
  current: PostureSnapshot;
  hosts: Partial<Record<PostureCategory, string>>;
}

/** posture.changed (all changes), dns.record.changed (one per record type), blacklist.listed/delisted (one per listing). */
export function changeEvents(changes: PostureChange[], ctx: ChangeContext): EventDraft[] {
  if (changes.length === 0) return [];
  const base = { teamId: ctx.teamId, domain: ctx.domain };
  const out: EventDraft[] = [{ ...base, type: "posture.changed", data: { check_id: ctx.checkId, changes: changes.map(change) } }];
  for (const cat of RECORD_CATEGORIES) {
    const mine = changes.filter((c) => c.category === cat);
    if (mine.length === 0) continue;
    out.push({
      ...base,
      type: "dns.record.changed",
      data: {
        check_id: ctx.checkId,
        record_type: cat,
        host: ctx.hosts[cat] ?? null,
        before: ctx.previous[cat]?.record ?? null,
        after: ctx.current[cat]?.record ?? null,
        status_before: ctx.previous[cat]?.status ?? null,
        status_after: ctx.current[cat]?.status ?? null,
        changes: mine.map(change),
      },
    });
  }
  for (const c of changes.filter((x) => x.category === "blacklist")) {
    const [list, ...rest] = c.field.split(":");
    out.push({
      ...base,
      type: c.after === "listed" ? "blacklist.listed" : "blacklist.delisted",
      data: { check_id: ctx.checkId, list, target: rest.join(":") },
    });
  }
  return out;
}

/** Drift alerts for changes of severity Medium or above; a blacklist alert for each new listing. */
export function changeAlerts(changes: PostureChange[], ctx: Pick<ChangeContext, "teamId" | "domain">): AlertDraft[] {
  const out: AlertDraft[] = [];
  for (const c of changes) {
    if (c.category === "blacklist") {
      if (c.after !== "listed") continue;
      const [list, ...rest] = c.field.split(":");
      out.push({
        teamId: ctx.teamId,
        domain: ctx.domain,
        kind: "blacklist",
        subject: `dnsbl:${c.field}`,
        severity: "High",
        title: `${rest.join(":")} is listed on ${list}`,
        body: `${rest.join(":")} of ${ctx.domain.name} appeared on the ${list} blocklist.`,
      });
      continue;
    }
    if (!atLeast(c.severity, "Medium")) continue;
    out.push({
      teamId: ctx.teamId,
      domain: ctx.domain,
      kind: "drift",
      subject: `${c.category}.${c.field}`,
      severity: c.severity,
      title: `${changeSentence(c.category, c.field, fieldText(c.before), fieldText(c.after))} on ${ctx.domain.name}`,
      body: `Before: ${fieldText(c.before) ?? "(none)"}\nAfter: ${fieldText(c.after) ?? "(none)"}`,
    });
  }
  return out;
}

/** Registration expiring within 30 days (or already expired): Critical within 7 days, else High. */
export function expiryAlert(ctx: Pick<ChangeContext, "teamId" | "domain">, expiresAt: Date | null, now: Date): AlertDraft | null {
  if (!expiresAt) return null;
  const days = Math.floor((expiresAt.getTime() - now.getTime()) / 86_400_000);
  if (days > 30) return null;
  const when =
    days < 0
      ? `expired on ${expiresAt.toISOString().slice(0, 10)}`
      : `expires in ${days} day${days === 1 ? "" : "s"} (${expiresAt.toISOString().slice(0, 10)})`;
  return {
    teamId: ctx.teamId,
    domain: ctx.domain,
    kind: "expiry",
    subject: "registration",
    severity: days <= 7 ? "Critical" : "High",
    title: `Registration of ${ctx.domain.name} ${when}`,
    body: "Renew the domain with its registrar; an expired domain stops receiving and authenticating mail.",
  };
}
