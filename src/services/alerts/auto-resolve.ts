// Resolves open alerts inside a producer's D1 batch when the condition behind them is gone (e.g. a new
// sender seen passing DMARC): alert.resolved is written only if the alert is still open at that point
// of the batch. No I/O here; the caller reads the open alerts and commits.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { alerts } from "../../db/schema";
import { buildConditionalEvent } from "./conditional-event";

export interface OpenAlert {
  id: number;
  teamId: number;
  domain: { id: number; name: string };
  kind: string;
  subject: string;
  severity: string;
  title: string;
}

export function autoResolve(db: Db, a: OpenAlert, now: Date): { statements: BatchItem<"sqlite">[]; eventId: string } {
  const event = buildConditionalEvent(
    db,
    {
      type: "alert.resolved",
      teamId: a.teamId,
      domain: a.domain,
      data: { alert: { id: a.id, kind: a.kind, subject: a.subject, severity: a.severity, title: a.title, resolved_at: now.toISOString() } },
    },
    now,
    { from: sql`alerts`, where: sql`alerts.id = ${a.id} AND alerts.resolved_at IS NULL` },
  );
  const update = db
    .update(alerts)
    .set({ resolvedAt: now, updatedAt: now })
    .where(and(eq(alerts.id, a.id), eq(alerts.teamId, a.teamId), isNull(alerts.resolvedAt)));
  return { statements: [event.statement, update], eventId: event.id };
}

/** The open alerts of one kind on one domain (the alerts_open_subject_uq index covers the lookup). */
export async function openAlertsOfKind(
  db: Db,
  teamId: number,
  domain: { id: number; name: string },
  kind: (typeof alerts.$inferSelect)["kind"],
): Promise<OpenAlert[]> {
  const rows = await db
    .select({ id: alerts.id, subject: alerts.subject, severity: alerts.severity, title: alerts.title })
    .from(alerts)
    .where(and(eq(alerts.teamId, teamId), eq(alerts.domainId, domain.id), eq(alerts.kind, kind), isNull(alerts.resolvedAt)));
  return rows.map((r) => ({ ...r, teamId, domain, kind }));
}
