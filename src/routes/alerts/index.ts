// Alerts: list (open filter, newest first, paginated) and resolve (idempotent).
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent, pageOf } from "../../lib/openapi";
import { PaginationQuery, pageMeta } from "../../lib/pagination";
import { listAlerts } from "../../services/alerts/list-alerts";
import { resolveAlert } from "../../services/alerts/resolve-alert";
import { booleanQuery } from "../query";
import { ALERT_KINDS } from "../../services/alerts/types";

const ts = (description: string) => z.string().nullable().openapi({ format: "date-time", description });

export const Alert = z
  .object({
    id: z.number().int().openapi({ example: 12 }),
    domain: z.string().nullable().openapi({ example: "example.com" }),
    domain_id: z.number().int().nullable(),
    kind: z.enum(ALERT_KINDS),
    subject: z.string().openapi({ description: "What the alert is about; one open alert per (domain, kind, subject).", example: "dmarc.p" }),
    severity: z.enum(["Critical", "High", "Medium", "Low", "Info"]),
    title: z.string(),
    body: z.string().nullable(),
    occurrences: z.number().int().openapi({ description: "How often the condition was raised while this alert was open." }),
    created_at: ts("When the alert opened."),
    updated_at: ts("Last repeat or change."),
    resolved_at: ts("null while open."),
  })
  .openapi("Alert", {
    example: {
      id: 12,
      domain: "example.com",
      domain_id: 1,
      kind: "drift",
      subject: "dmarc.p",
      severity: "High",
      title: "DMARC p changed on example.com",
      body: "Before: reject\nAfter: none",
      occurrences: 1,
      created_at: "2026-11-24T08:00:00.000Z",
      updated_at: "2026-11-24T08:00:00.000Z",
      resolved_at: null,
    },
  });

const AlertQuery = PaginationQuery.extend({
  open: booleanQuery("true or 1: open alerts only; false or 0: resolved only; omitted: all."),
});
const AlertParams = z.object({
  alert: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: "alert", in: "path" }, description: "Alert id.", example: 12 }),
});

const list = createRoute({
  method: "get",
  path: "/alerts",
  tags: ["Alerts"],
  security: BEARER,
  operationId: "listAlerts",
  description: "The team's alerts (drift, blacklist, expiry, DKIM, DMARC failure spike), newest first; filter with open=true or open=false.",
  summary: "List alerts, newest first",
  request: { query: AlertQuery },
  responses: { 200: jsonContent(pageOf(Alert), "A page of alerts."), ...errorResponses(...AUTH_ERRORS, 422) },
});
const resolve = createRoute({
  method: "post",
  path: "/alerts/{alert}/resolve",
  tags: ["Alerts"],
  security: BEARER,
  operationId: "resolveAlert",
  summary: "Resolve an alert (idempotent)",
  description: "Sets resolved_at; alert.resolved is emitted on the first resolve only. Resolving a resolved alert returns it unchanged.",
  request: { params: AlertParams },
  responses: { 200: jsonContent(dataOf(Alert), "The alert."), ...errorResponses(...AUTH_ERRORS, 403, 404) },
});

export const alertRoutes = () =>
  createRouter()
    .openapi(list, async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listAlerts(c.get("services"), c.get("ctx"), q);
      return c.json({ data: items as z.infer<typeof Alert>[], meta: pageMeta(q, total) }, 200);
    })
    .openapi(resolve, async (c) => {
      const data = await resolveAlert(c.get("services"), c.get("ctx"), c.req.valid("param").alert);
      return c.json({ data: data as z.infer<typeof Alert> }, 200);
    });
