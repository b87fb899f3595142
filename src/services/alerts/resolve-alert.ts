// Resolves one alert of the team (idempotent); alert.resolved is written only on the first resolve. Does I/O (D1, queue nudge).
import { and, eq, isNull, sql } from "drizzle-orm";
import { alerts, domains } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { Services } from "../../services";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import { buildConditionalEvent } from "./conditional-event";
import { alertView, type AlertView } from "./list-alerts";
import { type ServiceContext, requireWrite } from "../context";

export async function resolveAlert(svc: Services, ctx: ServiceContext, alertId: number): Promise<AlertView> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const found = await svc.db
    .select({ alert: alerts, domain: domains.name })
    .from(alerts)
    .leftJoin(domains, eq(domains.id, alerts.domainId))
    .where(and(eq(alerts.id, alertId), eq(alerts.teamId, teamId)))
    .get();
  if (!found) throw notFound("Alert");
  if (found.alert.resolvedAt) return alertView(found.alert, found.domain);

  const now = svc.clock.now();
  const a = found.alert;
  // The event goes first, guarded by the same condition as the update: of two concurrent resolves only one emits.
  const event = buildConditionalEvent(
    svc.db,
    {
      type: "alert.resolved",
      teamId,
      domain: a.domainId !== null && found.domain !== null ? { id: a.domainId, name: found.domain } : null,
      data: { alert: { id: a.id, kind: a.kind, subject: a.subject, severity: a.severity, title: a.title, resolved_at: now.toISOString() } },
    },
    now,
    { from: sql`alerts`, where: sql`alerts.id = ${a.id} AND alerts.resolved_at IS NULL` },
  );
  const entry = auditWhen(
    svc,
    ctx,
    {
      verb: "alert.resolve",
      target: { type: "alert", id: a.id },
      summary: `resolved ${a.severity} ${a.kind} alert "${a.title}"${found.domain ? ` on ${found.domain}` : ""}`,
    },
    { when: sql`EXISTS (SELECT 1 FROM alerts WHERE id = ${a.id} AND resolved_at IS NULL)` },
  );
  const [, , updated] = await commit(
    svc,
    [
      event.statement,
      entry,
      svc.db
        .update(alerts)
        .set({ resolvedAt: now, updatedAt: now })
        .where(and(eq(alerts.id, a.id), eq(alerts.teamId, teamId), isNull(alerts.resolvedAt)))
        .returning(),
    ],
    ([, , rows]) => (rows.length > 0 ? [event.id] : []),
  );
  const row = updated[0];
  const fresh = row ?? (await svc.db.query.alerts.findFirst({ where: eq(alerts.id, a.id) })) ?? a;
  return alertView(fresh, found.domain);
}
