// POST /webhooks/{id}/test: a webhook.test event for this endpoint only, attempted at once.
// Does I/O (D1, DNS, HTTP).
import { eq } from "drizzle-orm";
import { deliveries, events } from "../../db/schema";
import type { Services } from "../../services";
import { commit } from "../commit";
import { buildEvent } from "../events/emit";
import { deliverOne } from "./deliver";
import { getEndpointInTeam } from "./endpoints";
import { type DeliveryView, deliveryView } from "./views";
import { type ServiceContext, requireWrite } from "../context";

/**
 * The event row is written already fanned out, so neither fan-out nor the outbox sweep can send it
 * to other endpoints. The first attempt happens in the request (202: the attempt ran); the answer
 * shows its outcome, and a retryable failure continues on the normal retry schedule.
 */
export async function sendTest(svc: Services, ctx: ServiceContext, endpointId: number): Promise<DeliveryView> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const endpoint = await getEndpointInTeam(svc, teamId, endpointId);
  const now = svc.clock.now();
  const event = buildEvent(
    svc.db,
    { type: "webhook.test", teamId, data: { webhook: { id: endpoint.id, url: endpoint.url }, message: "This is a test event." } },
    now,
  );
  const [, , [row]] = await commit(svc, [
    event.statement,
    svc.db.update(events).set({ fannedOutAt: now }).where(eq(events.id, event.id)),
    svc.db
      .insert(deliveries)
      .values({ endpointId: endpoint.id, eventId: event.id, teamId, eventType: "webhook.test", status: "pending", attempts: 0, createdAt: now, updatedAt: now })
      .returning(),
  ]);
  if (!row) throw new Error("test delivery was not recorded");
  const after = await deliverOne(svc, row.id, { manual: true });
  return deliveryView(after ?? row);
}
