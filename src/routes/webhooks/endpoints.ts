// Webhook endpoints: event catalogue, list, create, view, update, delete, test, rotate-secret.
import { createRoute } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { PaginationQuery, pageMeta } from "../../lib/pagination";
import { jsonBody } from "../../middleware/json-body";
import { eventCatalogue } from "../../services/webhooks/catalogue";
import { createEndpoint } from "../../services/webhooks/create-endpoint";
import { deleteEndpoint, getEndpoint, listEndpoints } from "../../services/webhooks/endpoints";
import { sendTest } from "../../services/webhooks/send-test";
import { rotateSecret, updateEndpoint } from "../../services/webhooks/update-endpoint";
import { CreateWebhookBody, UpdateWebhookBody, WebhookDelivery, WebhookEndpoint, WebhookEventType, WebhookListMeta, WebhookParams } from "./schemas";

const tags = ["Webhooks"];
const security = BEARER;
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

const catalogue = createRoute({
  method: "get",
  path: "/webhook-events",
  tags,
  security,
  operationId: "listWebhookEvents",
  description:
    "The event catalogue: every event type an endpoint can subscribe to, with a description. The payload schemas are in this document's webhooks section.",
  summary: "The event types an endpoint can subscribe to",
  responses: { 200: jsonContent(dataOf(z.array(WebhookEventType)), "The catalogue."), ...errorResponses(...AUTH_ERRORS) },
});
const list = createRoute({
  method: "get",
  path: "/webhooks",
  tags,
  security,
  operationId: "listWebhooks",
  description: "The team's webhook endpoints and the plan's allowance (meta.limit).",
  summary: "List the team's webhook endpoints; meta.limit is the plan's allowance",
  request: { query: PaginationQuery },
  responses: {
    200: jsonContent(z.object({ data: z.array(WebhookEndpoint), meta: WebhookListMeta }), "A page of endpoints."),
    ...errorResponses(...AUTH_ERRORS, 422),
  },
});
const create = createRoute({
  method: "post",
  path: "/webhooks",
  tags,
  security,
  operationId: "createWebhook",
  summary: "Create an endpoint; the secret is returned only now",
  description:
    "The URL must be https (http only with WEBHOOK_ALLOW_INSECURE) and must not be or resolve to a private, loopback, link-local or metadata address (422 on `url`). 409 past the plan's allowance; 503 when DNS cannot be reached or no secret key is configured.",
  middleware: [jsonBody()] as const,
  request: { body: body(CreateWebhookBody) },
  responses: {
    201: jsonContent(dataOf(WebhookEndpoint), "The endpoint with its secret."),
    ...errorResponses(...AUTH_ERRORS, 400, 403, 409, 413, 415, 422, 503),
  },
});
const get = createRoute({
  method: "get",
  path: "/webhooks/{webhook}",
  tags,
  security,
  operationId: "getWebhook",
  description: "One endpoint: URL, events, domain filter, enabled state and failure counters (the secret is never shown again).",
  summary: "One endpoint",
  request: { params: WebhookParams },
  responses: { 200: jsonContent(dataOf(WebhookEndpoint), "The endpoint."), ...errorResponses(...AUTH_ERRORS, 404) },
});
const update = createRoute({
  method: "patch",
  path: "/webhooks/{webhook}",
  tags,
  security,
  operationId: "updateWebhook",
  description: "Changes an endpoint's URL, events, domain filter or enabled state. Re-enabling resets the failure count.",
  summary: "Change an endpoint; enable or disable it",
  middleware: [jsonBody()] as const,
  request: { params: WebhookParams, body: body(UpdateWebhookBody) },
  responses: { 200: jsonContent(dataOf(WebhookEndpoint), "The endpoint."), ...errorResponses(...AUTH_ERRORS, 400, 403, 404, 413, 415, 422, 503) },
});
const remove = createRoute({
  method: "delete",
  path: "/webhooks/{webhook}",
  tags,
  security,
  operationId: "deleteWebhook",
  description: "Deletes an endpoint and its delivery log.",
  summary: "Delete an endpoint and its delivery log",
  request: { params: WebhookParams },
  responses: { 204: { description: "Deleted." }, ...errorResponses(...AUTH_ERRORS, 403, 404) },
});
const test = createRoute({
  method: "post",
  path: "/webhooks/{webhook}/test",
  tags,
  security,
  operationId: "testWebhook",
  summary: "Send a webhook.test event to this endpoint now",
  description: "The first attempt is made during the request; the delivery shows its outcome. A retryable failure continues on the retry schedule.",
  request: { params: WebhookParams },
  responses: { 202: jsonContent(dataOf(WebhookDelivery), "The test delivery."), ...errorResponses(...AUTH_ERRORS, 403, 404) },
});
const rotate = createRoute({
  method: "post",
  path: "/webhooks/{webhook}/rotate-secret",
  tags,
  security,
  operationId: "rotateWebhookSecret",
  description: "Issues a new signing secret (shown once). For 24 hours deliveries carry signatures with both the old and the new secret.",
  summary: "New secret; the old one keeps signing for 24 hours",
  request: { params: WebhookParams },
  responses: { 200: jsonContent(dataOf(WebhookEndpoint), "The endpoint with its new secret."), ...errorResponses(...AUTH_ERRORS, 403, 404, 503) },
});

export const endpointRoutes = () =>
  createRouter()
    .openapi(catalogue, (c) => c.json({ data: eventCatalogue() }, 200))
    .openapi(list, async (c) => {
      const q = c.req.valid("query");
      const { rows, total, limit } = await listEndpoints(c.get("services"), c.get("ctx"), c.get("auth").team.plan, q);
      return c.json({ data: rows, meta: { ...pageMeta(q, total), limit } }, 200);
    })
    .openapi(create, async (c) => {
      return c.json({ data: await createEndpoint(c.get("services"), c.get("ctx"), c.get("auth").team.plan, c.req.valid("json")) }, 201);
    })
    .openapi(get, async (c) => {
      return c.json({ data: await getEndpoint(c.get("services"), c.get("ctx"), c.req.valid("param").webhook) }, 200);
    })
    .openapi(update, async (c) => {
      const data = await updateEndpoint(c.get("services"), c.get("ctx"), c.req.valid("param").webhook, c.req.valid("json"));
      return c.json({ data }, 200);
    })
    .openapi(remove, async (c) => {
      await deleteEndpoint(c.get("services"), c.get("ctx"), c.req.valid("param").webhook);
      return c.body(null, 204);
    })
    .openapi(test, async (c) => c.json({ data: await sendTest(c.get("services"), c.get("ctx"), c.req.valid("param").webhook) }, 202))
    .openapi(rotate, async (c) => c.json({ data: await rotateSecret(c.get("services"), c.get("ctx"), c.req.valid("param").webhook) }, 200));
