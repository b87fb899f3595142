// GET /admin/report-moves: the mover's progress (docs/decisions.md D131), behind the admin gate of
// this router (ADMIN_TOKEN, docs/decisions.md D2).
import { createRoute, z } from "@hono/zod-openapi";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { dataOf, errorResponses } from "../../lib/openapi";
import { reportMoveProgress } from "../../services/report-moves/progress";

const Progress = z
  .object({
    tables: z.array(
      z.object({
        name: z.string(),
        rows: z.number().int().nullable().openapi({ description: "Rows left; null once the table is dropped." }),
      }),
    ),
    domains_left: z.number().int().openapi({ description: "Domains whose DMARC reports are still in D1." }),
    dmarc_done: z.boolean().openapi({ description: "True once the DMARC legacy tables are moved and dropped." }),
    webhooks_done: z.boolean().openapi({
      description: "True once legacy_deliveries is moved into the per-team webhook logs and dropped, and no event the old release fanned out is left in D1.",
    }),
  })
  .openapi({
    example: {
      tables: [
        { name: "legacy_dmarc_rows", rows: 120500 },
        { name: "legacy_dmarc_reports", rows: 812 },
        { name: "legacy_tls_failures", rows: 0 },
        { name: "legacy_tls_policies", rows: 0 },
        { name: "legacy_tls_reports", rows: 0 },
        { name: "legacy_deliveries", rows: 48210 },
      ],
      domains_left: 37,
      dmarc_done: false,
      webhooks_done: false,
    },
  });

const route = createRoute({
  method: "get",
  path: "/report-moves",
  tags: ["Admin"],
  operationId: "getReportMoves",
  summary: "Progress of moving D1 report rows and webhook deliveries into their objects",
  description:
    "Rows left in each legacy table of D1 (null once dropped): the report tables moving into the per-domain objects and legacy_deliveries moving into the per-team webhook logs; the domains whose DMARC reports are not moved yet. The every-minute cron moves them in batches.",
  security: [{ adminToken: [] }],
  responses: { 200: { description: "What is left.", content: { "application/json": { schema: dataOf(Progress) } } }, ...errorResponses(401, 404) },
});

export function registerReportMoves(r: OpenAPIHono<AppEnv>): void {
  r.openapi(route, async (c) => c.json({ data: await reportMoveProgress(c.get("services")) }, 200));
}
