// Input schemas of the domain verbs, shared by every face that calls them (REST body, agent tool input). No I/O.
import { z } from "@hono/zod-openapi";

export const CreateDomainBody = z
  .object({
    name: z.string().min(1).max(300).openapi({ example: "example.com", description: "Normalized: lower case, no trailing dot, IDN to punycode." }),
    client_id: z.number().int().positive().nullable().optional().openapi({ description: "Optional client label.", example: 42 }),
  })
  .openapi("CreateDomain");
