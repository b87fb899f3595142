// Input schemas of the DKIM inventory views, shared by every face that calls them. No I/O.
import { z } from "@hono/zod-openapi";

export const DaysQuery = z.object({
  days: z.coerce.number().int().min(1).max(365).default(30).openapi({ description: "Window in days, 1 to 365.", example: 30 }),
});
