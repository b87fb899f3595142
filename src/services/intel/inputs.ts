// Input schemas of the address checks, shared by every face that calls them. No I/O.
import { z } from "@hono/zod-openapi";

export const MAX_BATCH = 100;

export const EmailQuery = z.object({
  email: z.string().min(1).max(320).openapi({ example: "jane@example.com" }),
});

export const IntelEmailsRequest = z
  .object({
    emails: z
      .array(z.string().max(320))
      .min(1)
      .max(MAX_BATCH)
      .openapi({ description: `1 to ${MAX_BATCH} addresses; duplicates are allowed.` }),
  })
  .openapi("IntelEmailsRequest", { example: { emails: ["jane@example.com", "support@example.com", "x@mailinator.com"] } });
