// POST /webhooks/{id}/test: a webhook.test event for this endpoint only, attempted at once.
// Does I/O (D1, the team object, DNS, HTTP).
import type { Services } from "../../services";
import { eventBody } from "../events/emit";
import { deliverOne } from "./deliver";
import { getEndpointInTeam } from "./endpoints";
import { deliveryIdFloor, teamLog } from "./team-log";
import { type DeliveryView, deliveryView } from "./views";
import { type ServiceContext, requireWrite } from "../context";

/**
 * The event and its one delivery go straight into the team's webhook log (no D1 outbox row), so neither
 * fan-out nor the outbox sweep can send it to other endpoints (docs/decisions.md D141). The first attempt
 * happens in the request (202: the attempt ran); the answer shows its outcome, and a retryable failure
 * continues on the normal retry schedule.
 */
export async function sendTest(svc: Services, ctx: ServiceContext, endpointId: number): Promise<DeliveryView> {
  requireWrite(ctx);
  const endpoint = await getEndpointInTeam(svc, ctx.teamId, endpointId);
  const now = svc.clock.now();
  const payload = eventBody(
    { type: "webhook.test", teamId: endpoint.teamId, data: { webhook: { id: endpoint.id, url: endpoint.url }, message: "This is a test event." } },
    now,
  );
  const row = await teamLog(svc, { id: endpoint.teamId }).testDelivery({
    teamId: endpoint.teamId,
    event: { id: payload.id, domainId: null, type: "webhook.test", payload: JSON.stringify(payload), createdAt: now.getTime() },
    endpointId: endpoint.id,
    nowMs: now.getTime(),
    idFloor: await deliveryIdFloor(svc),
  });
  const after = await deliverOne(svc, { teamId: endpoint.teamId, endpointId: endpoint.id, deliveryId: row.id }, { manual: true, endpoint });
  return deliveryView(after ?? row);
}
