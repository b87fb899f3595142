// The delivery log of an endpoint: list (status and event filters), one delivery, redeliver.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent, pageOf } from "../../lib/openapi";
import { pageMeta } from "../../lib/pagination";
import { getDelivery, listDeliveries, redeliver } from "../../services/webhooks/deliveries";
import { DeliveryParams, DeliveryQuery, WebhookDelivery, WebhookDeliveryDetail, WebhookParams } from "./schemas";

const tags = ["Webhooks"];
const security = BEARER;

const list = createRoute({
  method: "get",
  path: "/webhooks/{webhook}/deliveries",
  tags,
  security,
  operationId: "listWebhookDeliveries",
  description: "The endpoint's delivery log (30 days), newest first; filter by status or event type.",
  summary: "Deliveries of an endpoint, newest first (kept 30 days)",
  request: { params: WebhookParams, query: DeliveryQuery },
  responses: { 200: jsonContent(pageOf(WebhookDelivery), "A page of deliveries."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});
const get = createRoute({
  method: "get",
  path: "/webhooks/{webhook}/deliveries/{delivery}",
  tags,
  security,
  operationId: "getWebhookDelivery",
  description: "One delivery: the exact payload sent and the receiver's last answer (status, headers, first 4 KB of the body).",
  summary: "One delivery with its payload and the receiver's last response",
  request: { params: DeliveryParams },
  responses: { 200: jsonContent(dataOf(WebhookDeliveryDetail), "The delivery."), ...errorResponses(...AUTH_ERRORS, 404) },
});
const again = createRoute({
  method: "post",
  path: "/webhooks/{webhook}/deliveries/{delivery}/redeliver",
  tags,
  security,
  operationId: "redeliverWebhookDelivery",
  summary: "Send a delivery again: same webhook-id, fresh timestamp and signature",
  description:
    "A new attempt on the same delivery, made during the request; the delivery goes back to pending for it and `attempts` keeps counting. A retryable failure resumes the retry schedule where it stood (none left after 8 attempts: failed).",
  request: { params: DeliveryParams },
  responses: { 202: jsonContent(dataOf(WebhookDelivery), "The delivery after the attempt."), ...errorResponses(...AUTH_ERRORS, 403, 404, 409) },
});

export const deliveryRoutes = () =>
  createRouter()
    .openapi(list, async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listDeliveries(c.get("services"), c.get("ctx"), c.req.valid("param").webhook, q);
      return c.json({ data: rows, meta: pageMeta(q, total) }, 200);
    })
    .openapi(get, async (c) => {
      const { webhook, delivery } = c.req.valid("param");
      return c.json({ data: await getDelivery(c.get("services"), c.get("ctx"), webhook, delivery) }, 200);
    })
    .openapi(again, async (c) => {
      const { webhook, delivery } = c.req.valid("param");
      return c.json({ data: await redeliver(c.get("services"), c.get("ctx"), webhook, delivery) }, 202);
    });
