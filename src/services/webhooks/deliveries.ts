// The delivery log of one endpoint, read from the team's webhook log object (docs/decisions.md D140):
// list with filters, one delivery with payload and response, and redelivery. The endpoint is loaded
// within the caller's team from D1 first, so another team's endpoint or another endpoint's delivery is a
// 404. Does I/O (D1, the team object; redeliver also DNS and HTTP).
import { conflict, notFound } from "../../lib/errors";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import type { Services } from "../../services";
import { audit, urlForAudit } from "../audit-when";
import { commit } from "../commit";
import { deliverOne, parsePayload } from "./deliver";
import { getEndpointInTeam } from "./endpoints";
import { teamLog } from "./team-log";
import { type DeliveryDetailView, type DeliveryView, deliveryDetailView, deliveryView } from "./views";
import { type ServiceContext, requireWrite } from "../context";

export interface DeliveryFilter extends PaginationQuery {
  status?: "pending" | "delivered" | "failed";
  event?: string;
}

export async function listDeliveries(svc: Services, ctx: ServiceContext, endpointId: number, q: DeliveryFilter) {
  const endpoint = await getEndpointInTeam(svc, ctx.teamId, endpointId);
  const out = await teamLog(svc, { id: endpoint.teamId }).listDeliveries({
    endpointId: endpoint.id,
    ...(q.status ? { status: q.status } : {}),
    ...(q.event ? { eventType: q.event } : {}),
    limit: q.per_page,
    offset: pageOffset(q),
  });
  return { rows: out.rows.map(deliveryView), total: out.total };
}

export async function getDelivery(svc: Services, ctx: ServiceContext, endpointId: number, deliveryId: number): Promise<DeliveryDetailView> {
  const endpoint = await getEndpointInTeam(svc, ctx.teamId, endpointId);
  const found = await teamLog(svc, { id: endpoint.teamId }).getDelivery(endpoint.id, deliveryId);
  if (!found) throw notFound("Delivery");
  return deliveryDetailView(found.row, parsePayload(found.payload));
}

/**
 * A new attempt on the same delivery row, at once: same webhook-id (the event id), fresh timestamp
 * and signature (docs/decisions.md D11). The row goes back to pending for the attempt; `attempts` keeps
 * counting. A retryable failure resumes the retry schedule where it stood, so a delivery whose 8
 * attempts are spent ends failed again after one more failed attempt.
 */
export async function redeliver(svc: Services, ctx: ServiceContext, endpointId: number, deliveryId: number): Promise<DeliveryView> {
  requireWrite(ctx);
  const endpoint = await getEndpointInTeam(svc, ctx.teamId, endpointId);
  const reset = await teamLog(svc, { id: endpoint.teamId }).resetForRedeliver(endpoint.id, deliveryId, svc.clock.now().getTime());
  if (reset === null) throw notFound("Delivery");
  // Not while an attempt is in flight (a consumer holds the lease): that would send it twice at once.
  if (reset.busy) throw conflict("An attempt of this delivery is in flight; redeliver once it has finished.");
  // The delivery lives in the team's webhook log, not in D1: the entry follows the reset (docs/decisions.md D239).
  await commit(svc, [
    audit(svc, ctx, {
      verb: "webhook_delivery.redeliver",
      target: { type: "webhook_delivery", id: deliveryId },
      summary: `delivery ${deliveryId} (${reset.row.eventType}) sent again to ${urlForAudit(endpoint.url)}`,
    }),
  ]);
  const after = await deliverOne(svc, { teamId: endpoint.teamId, endpointId: endpoint.id, deliveryId }, { manual: true, endpoint });
  return deliveryView(after ?? reset.row);
}
