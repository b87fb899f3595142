// Alerts of one team, newest first, optionally only open or only resolved; paginated. Does I/O (D1).
import { and, count, desc, eq, isNotNull, isNull, type SQL } from "drizzle-orm";
import { alerts, domains } from "../../db/schema";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";

export type AlertRow = typeof alerts.$inferSelect;

export const alertView = (a: AlertRow, domainName: string | null) => ({
  id: a.id,
  domain: domainName,
  domain_id: a.domainId,
  kind: a.kind,
  subject: a.subject,
  severity: a.severity,
  title: a.title,
  body: a.body,
  occurrences: a.occurrences,
  created_at: iso(a.createdAt),
  updated_at: iso(a.updatedAt),
  resolved_at: iso(a.resolvedAt),
});
export type AlertView = ReturnType<typeof alertView>;

export async function listAlerts(svc: Services, ctx: ServiceContext, q: PaginationQuery & { open?: boolean }) {
  const { teamId } = ctx;
  const filters: SQL[] = [eq(alerts.teamId, teamId)];
  if (q.open === true) filters.push(isNull(alerts.resolvedAt));
  if (q.open === false) filters.push(isNotNull(alerts.resolvedAt));
  const where = and(...filters);
  const [rows, total] = await svc.db.batch([
    svc.db
      .select({ alert: alerts, domain: domains.name })
      .from(alerts)
      .leftJoin(domains, eq(domains.id, alerts.domainId))
      .where(where)
      .orderBy(desc(alerts.createdAt), desc(alerts.id))
      .limit(q.per_page)
      .offset(pageOffset(q)),
    svc.db.select({ n: count() }).from(alerts).where(where),
  ]);
  return { items: rows.map((r) => alertView(r.alert, r.domain)), total: total[0]?.n ?? 0 };
}
