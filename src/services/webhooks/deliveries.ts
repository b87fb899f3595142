// The delivery log of one endpoint: list with filters, one delivery with payload and response, and
// redelivery. Does I/O (D1; redeliver also DNS and HTTP).
import { and, count, desc, eq, isNull, lte, or, type SQL } from "drizzle-orm";
import { deliveries, events } from "../../db/schema";
import { conflict, notFound } from "../../lib/errors";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import type { Services } from "../../services";
import { deliverOne } from "./deliver";
import { getEndpointInTeam } from "./endpoints";
import { type DeliveryDetailView, type DeliveryView, deliveryDetailView, deliveryView } from "./views";
import { type ServiceContext, requireWrite } from "../context";

export interface DeliveryFilter extends PaginationQuery {
  status?: "pending" | "delivered" | "failed";
  event?: string;
}

export async function listDeliveries(svc: Services, ctx: ServiceContext, endpointId: number, q: DeliveryFilter) {
  const { teamId } = ctx;
  await getEndpointInTeam(svc, teamId, endpointId);
  const conds: SQL[] = [eq(deliveries.endpointId, endpointId), eq(deliveries.teamId, teamId)];
  if (q.status) conds.push(eq(deliveries.status, q.status));
  if (q.event) conds.push(eq(deliveries.eventType, q.event));
  const where = and(...conds);
  const [rows, totals] = await svc.db.batch([
    svc.db.select().from(deliveries).where(where).orderBy(desc(deliveries.createdAt), desc(deliveries.id)).limit(q.per_page).offset(pageOffset(q)),
    svc.db.select({ n: count() }).from(deliveries).where(where),
  ]);
  return { rows: rows.map(deliveryView), total: totals[0]?.n ?? 0 };
}

async function deliveryInEndpoint(svc: Services, teamId: number, endpointId: number, deliveryId: number) {
  await getEndpointInTeam(svc, teamId, endpointId);
  const [found] = await svc.db
    .select({ d: deliveries, payload: events.payload })
    .from(deliveries)
    .innerJoin(events, eq(events.id, deliveries.eventId))
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.endpointId, endpointId), eq(deliveries.teamId, teamId)))
    .limit(1);
  if (!found) throw notFound("Delivery");
  return found;
}

export async function getDelivery(svc: Services, ctx: ServiceContext, endpointId: number, deliveryId: number): Promise<DeliveryDetailView> {
  const { teamId } = ctx;
  const found = await deliveryInEndpoint(svc, teamId, endpointId, deliveryId);
  return deliveryDetailView(found.d, found.payload);
}

/**
 * A new attempt on the same delivery row, at once: same webhook-id (the event id), fresh timestamp
 * and signature (docs/decisions.md D11). The row goes back to pending for the attempt; `attempts` keeps
 * counting. A retryable failure resumes the retry schedule where it stood, so a delivery whose 8
 * attempts are spent ends failed again after one more failed attempt.
 */
export async function redeliver(svc: Services, ctx: ServiceContext, endpointId: number, deliveryId: number): Promise<DeliveryView> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const { d } = await deliveryInEndpoint(svc, teamId, endpointId, deliveryId);
  const now = svc.clock.now();
  // Not while an attempt is in flight (a consumer holds the lease): that would send it twice at once.
  const reset = await svc.db
    .update(deliveries)
    .set({ status: "pending", nextRetryAt: null, updatedAt: now })
    .where(and(eq(deliveries.id, d.id), or(isNull(deliveries.leasedUntil), lte(deliveries.leasedUntil, now))))
    .returning({ id: deliveries.id });
  if (reset.length === 0) throw conflict("An attempt of this delivery is in flight; redeliver once it has finished.");
  const after = await deliverOne(svc, d.id, { manual: true });
  return deliveryView(after ?? d);
}
