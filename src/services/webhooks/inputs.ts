// Input schemas of the delivery log, shared by every face that calls it. No I/O.
import { z } from "@hono/zod-openapi";
import { PaginationQuery } from "../../lib/pagination";

export const DeliveryQuery = PaginationQuery.extend({
  status: z.enum(["pending", "delivered", "failed"]).optional(),
  event: z.string().max(64).optional().openapi({ description: "Only deliveries of this event type." }),
});
