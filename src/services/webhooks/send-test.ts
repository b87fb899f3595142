// POST /webhooks/{id}/test: a webhook.test event for this endpoint only, attempted at once.
// Does I/O (D1, the team object, DNS, HTTP).
import type { Services } from "../../services";
import { audit, urlForAudit } from "../audit-when";
import { commit } from "../commit";
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
  // The delivery lives in the team's webhook log, not in D1: the entry follows its creation (docs/decisions.md D239).
  await commit(svc, [
    audit(svc, ctx, {
      verb: "webhook_endpoint.test",
      target: { type: "webhook_endpoint", id: endpoint.id },
      summary: `test event ${payload.id} sent to ${urlForAudit(endpoint.url)}`,
    }),
  ]);
  const after = await deliverOne(svc, { teamId: endpoint.teamId, endpointId: endpoint.id, deliveryId: row.id }, { manual: true, endpoint });
  return deliveryView(after ?? row);
}
