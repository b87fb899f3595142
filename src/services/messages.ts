// Queue message bodies (zod), owned by the services that produce them; consumers in src/queues parse what they receive. Messages stay far below 128 KB.
import { z } from "zod";

export const CheckMessage = z.object({
  domain_id: z.number().int().positive(),
  check_id: z.string().min(1).max(64),
  trigger: z.enum(["scheduled", "manual", "verify"]),
});
export type CheckMessage = z.infer<typeof CheckMessage>;

const id = z.number().int().positive();

/** What producers send: a fan-out nudge, or one attempt of a delivery in its team's log (docs/decisions.md D141). */
export const DeliveryMessage = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("fanout"), event_id: z.string().min(1).max(64) }),
  z.object({ kind: z.literal("deliver"), team_id: id, endpoint_id: id, delivery_id: id }),
  /** Send one notification message to its channel (docs/decisions.md D179). */
  z.object({ kind: z.literal("notify"), team_id: id, message_id: id }),
]);
export type DeliveryMessage = z.infer<typeof DeliveryMessage>;

/**
 * A deliver message of the release before the per-team log (no team_id): still parsed, logged and acked;
 * its delivery is moved from D1 by the webhook log mover and re-sent by its team object's alarm (D145).
 */
export const LegacyDeliverMessage = z.object({ kind: z.literal("deliver"), delivery_id: id });
export type LegacyDeliverMessage = z.infer<typeof LegacyDeliverMessage>;

/** What the deliveries consumer accepts. */
export const IncomingDeliveryMessage = z.union([DeliveryMessage, LegacyDeliverMessage]);
export type IncomingDeliveryMessage = z.infer<typeof IncomingDeliveryMessage>;
