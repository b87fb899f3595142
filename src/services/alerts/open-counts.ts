// Open alerts per domain of one team, for lists that show a count beside each domain. Does I/O (D1).
import { and, count, eq, isNotNull, isNull } from "drizzle-orm";
import { alerts } from "../../db/schema";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";

export async function openAlertCounts(svc: Services, ctx: ServiceContext): Promise<Map<number, number>> {
  const rows = await svc.db
    .select({ domainId: alerts.domainId, n: count() })
    .from(alerts)
    .where(and(eq(alerts.teamId, ctx.teamId), isNull(alerts.resolvedAt), isNotNull(alerts.domainId)))
    .groupBy(alerts.domainId);
  return new Map(rows.flatMap((r) => (r.domainId === null ? [] : [[r.domainId, r.n] as const])));
}
