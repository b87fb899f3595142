// Alert upserts for a D1 batch: one open alert per (team, domain, kind, subject); a repeat updates it. Reads open alerts (D1) once.
import type { BatchItem } from "drizzle-orm/batch";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { alerts } from "../../db/schema";
import { buildConditionalEvent } from "./conditional-event";
import type { AlertDraft } from "./types";

export interface AlertUpserts {
  statements: BatchItem<"sqlite">[];
  /** alert.created events that this batch will write if it commits (for publishEvents). */
  eventIds: string[];
}

export const alertKey = (domainId: number | null, kind: string, subject: string) => `${domainId ?? ""}|${kind}|${subject}`;

const openMatch = (d: AlertDraft) =>
  sql`alerts.team_id = ${d.teamId} AND alerts.domain_id = ${d.domain.id} AND alerts.kind = ${d.kind} AND alerts.subject = ${d.subject} AND alerts.resolved_at IS NULL`;

/**
 * INSERT ... ON CONFLICT DO UPDATE on the partial unique index alerts_open_subject_uq, then an
 * alert.created event that is written only when this statement inserted the row (occurrences = 1,
 * created_at = now), with the new alert's id set by SQL. `knownOpen`: the caller saw an open alert
 * for this subject before the batch, so no event is expected (no fan-out nudge).
 */
export function upsertAlert(db: Db, draft: AlertDraft, now: Date, knownOpen = false): { statements: BatchItem<"sqlite">[]; eventId: string | null } {
  const upsert = db
    .insert(alerts)
    .values({
      teamId: draft.teamId,
      domainId: draft.domain.id,
      kind: draft.kind,
      subject: draft.subject,
      severity: draft.severity,
      title: draft.title,
      body: draft.body,
      occurrences: 1,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [alerts.teamId, alerts.domainId, alerts.kind, alerts.subject],
      targetWhere: sql`resolved_at IS NULL`,
      set: { severity: draft.severity, title: draft.title, body: draft.body, updatedAt: now, occurrences: sql`${alerts.occurrences} + 1` },
    });
  const event = buildConditionalEvent(
    db,
    {
      type: "alert.created",
      teamId: draft.teamId,
      domain: draft.domain,
      data: { alert: { id: null, kind: draft.kind, subject: draft.subject, severity: draft.severity, title: draft.title, body: draft.body } },
    },
    now,
    {
      from: sql`alerts`,
      where: sql`alerts.occurrences = 1 AND alerts.created_at = ${now.getTime()} AND ${openMatch(draft)}`,
      patch: { path: "$.data.alert.id", value: sql`alerts.id` },
    },
  );
  return { statements: [upsert, event.statement], eventId: knownOpen ? null : event.id };
}

/** The open alert keys of one domain, read before the batch so that updates send no nudge. */
export async function openAlertKeys(db: Db, teamId: number, domainId: number): Promise<Set<string>> {
  const rows = await db
    .select({ kind: alerts.kind, subject: alerts.subject })
    .from(alerts)
    .where(and(eq(alerts.teamId, teamId), eq(alerts.domainId, domainId), isNull(alerts.resolvedAt)));
  return new Set(rows.map((r) => alertKey(domainId, r.kind, r.subject)));
}

/** Several drafts for one batch; drafts with the same subject collapse into the last one. */
export function upsertAlerts(db: Db, drafts: AlertDraft[], now: Date, open: Set<string> = new Set()): AlertUpserts {
  const byKey = new Map<string, AlertDraft>();
  for (const d of drafts) byKey.set(alertKey(d.domain.id, d.kind, d.subject), d);
  const out: AlertUpserts = { statements: [], eventIds: [] };
  for (const [key, d] of byKey) {
    const u = upsertAlert(db, d, now, open.has(key));
    out.statements.push(...u.statements);
    if (u.eventId) out.eventIds.push(u.eventId);
  }
  return out;
}
