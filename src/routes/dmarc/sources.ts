// GET /domains/{domain}/dmarc/sources: every source IP of a window, filtered and paginated. Route definition and schemas.
import { createRoute, z } from "@hono/zod-openapi";
import { AUTH_ERRORS, BEARER, errorResponses, jsonContent } from "../../lib/openapi";
import { PageMeta, PaginationQuery } from "../../lib/pagination";
import { DomainParam, WindowQuery, WindowView } from "./params";

const PassFail = z.object({ pass: z.number().int(), fail: z.number().int() });

const DmarcSource = z
  .object({
    ip: z.string(),
    ptr: z.string().nullable().openapi({ description: "Forward-confirmed reverse DNS name; null until looked up (25 new lookups per request, cached a day)." }),
    sender: z.string().nullable().openapi({ description: "The identified sender (by reverse DNS, then the providers' SPF ranges)." }),
    identified_by: z.enum(["ptr", "spf"]).nullable(),
    messages: z.number().int(),
    dmarc: PassFail,
    spf: PassFail.extend({ aligned: z.number().int() }),
    dkim: PassFail.extend({ aligned: z.number().int() }),
    first_day: z.string().openapi({ description: "First day in the window with mail from this source." }),
    last_day: z.string(),
  })
  .openapi("DmarcSource", {
    example: {
      ip: "209.85.220.41",
      ptr: "mail-sor-f41.google.com",
      sender: "Google",
      identified_by: "ptr",
      messages: 150,
      dmarc: { pass: 150, fail: 0 },
      spf: { pass: 100, fail: 50, aligned: 100 },
      dkim: { pass: 150, fail: 0, aligned: 150 },
      first_day: "2026-11-20",
      last_day: "2026-11-23",
    },
  });

export const SourcesQuery = WindowQuery.extend(PaginationQuery.shape).extend({
  sender: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: "Only sources identified as this sender (case-insensitive), e.g. Google.", example: "Google" }),
  result: z.enum(["pass", "fail"]).optional().openapi({
    description: "Only messages that passed (or failed) DMARC: counts then cover those messages alone, and sources without any drop out.",
    example: "fail",
  }),
  ip: z.string().min(1).max(64).optional().openapi({ description: "One address, or a CIDR prefix (192.0.2.0/24, 2001:db8::/32).", example: "192.0.2.0/24" }),
});

export const listSourcesRoute = createRoute({
  method: "get",
  path: "/domains/{domain}/dmarc/sources",
  tags: ["DMARC"],
  operationId: "listDmarcSources",
  description:
    "Every source IP in the window (`days`, or `from`/`to`) by messages, with DMARC, SPF and DKIM counts, the identified sender and reverse DNS. Counted as the analytics summary counts: without filters the pages add up to its totals. `sender` and `ip` filters scan at most 20,000 sources of the window (422 beyond: narrow the window).",
  security: BEARER,
  summary: "Every DMARC source IP with its counts, sender and reverse DNS, filtered and paginated",
  request: { params: DomainParam, query: SourcesQuery },
  responses: {
    200: jsonContent(z.object({ data: z.array(DmarcSource), meta: PageMeta.extend({ window: WindowView }) }), "A page of sources and the window they cover."),
    ...errorResponses(...AUTH_ERRORS, 404, 422),
  },
});
