// Queue message bodies (zod), owned by the services that produce them; consumers in src/queues parse what they receive. Messages stay far below 128 KB.
import { z } from "zod";

export const CheckMessage = z.object({
  domain_id: z.number().int().positive(),
  check_id: z.string().min(1).max(64),
  trigger: z.enum(["scheduled", "manual", "verify"]),
});
export type CheckMessage = z.infer<typeof CheckMessage>;

export const DeliveryMessage = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("fanout"), event_id: z.string().min(1).max(64) }),
  z.object({ kind: z.literal("deliver"), delivery_id: z.number().int().positive() }),
]);
export type DeliveryMessage = z.infer<typeof DeliveryMessage>;
