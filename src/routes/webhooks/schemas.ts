// Request and response schemas of the webhook routes (docs/events.md, docs/decisions.md D10).
import { z } from "@hono/zod-openapi";
import { PageMeta } from "../../lib/pagination";
import { WebhookEvent } from "./event-docs";

const dt = z.string().nullable().openapi({ format: "date-time" });
const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const WebhookParams = z.object({ webhook: id.openapi({ param: { name: "webhook", in: "path" }, example: 1 }) });
export const DeliveryParams = WebhookParams.extend({ delivery: id.openapi({ param: { name: "delivery", in: "path" }, example: 1 }) });

export const WebhookEventType = z
  .object({ type: z.string().openapi({ example: "domain.verified" }), description: z.string() })
  .openapi("WebhookEventType", { example: { type: "domain.verified", description: "Ownership is verified; monitoring started." } });

export const WebhookEndpoint = z
  .object({
    id: z.number().int(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()).openapi({ description: "Event types, or `*` for all.", example: ["domain.verified", "alert.created"] }),
    domain_ids: z.array(z.number().int()).nullable().openapi({ description: "Domains subscribed to; null: every domain, and team-wide events." }),
    enabled: z.boolean(),
    failure_count: z.number().int().openapi({ description: "Failed deliveries in a row; the 20th disables the endpoint." }),
    disabled_at: dt,
    disabled_reason: z.string().nullable().openapi({ description: "manual, gone (410 from the receiver) or consecutive_failures." }),
    last_success_at: dt,
    last_failure_at: dt,
    created_at: dt,
    secret: z.string().optional().openapi({ description: "Only on create and rotate-secret: whsec_ + base64 of 32 random bytes." }),
  })
  .openapi("WebhookEndpoint", {
    example: {
      id: 3,
      url: "https://hooks.acme.example/emailauth",
      description: "Ops alerts",
      events: ["alert.created", "dkim.key.rotated"],
      domain_ids: null,
      enabled: true,
      failure_count: 0,
      disabled_at: null,
      disabled_reason: null,
      last_success_at: "2026-11-24T08:00:02.000Z",
      last_failure_at: null,
      created_at: "2026-11-20T09:10:00.000Z",
    },
  });

const events = z.array(z.string().max(64)).max(50).openapi({ description: "Event types (GET /webhook-events) or `*`." });
const domainIds = z.array(z.number().int().positive()).max(100).nullable();
const url = z.string().min(1).max(2048).openapi({ format: "uri", example: "https://hooks.example.com/emailauth" });

export const CreateWebhookBody = z
  .object({
    url,
    events,
    description: z.string().max(500).nullable().optional(),
    domain_ids: domainIds.optional().openapi({ description: "Domain ids of the team; omit or null for every domain." }),
  })
  .openapi("CreateWebhook");

export const UpdateWebhookBody = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description: z.string().max(500).nullable().optional(),
    domain_ids: domainIds.optional(),
    enabled: z.boolean().optional().openapi({
      description: "true on a disabled endpoint clears disabled_at and disabled_reason and resets failure_count; false sets disabled_reason manual.",
    }),
  })
  .openapi("UpdateWebhook");

export const WebhookDelivery = z
  .object({
    id: z.number().int(),
    event_id: z.string().openapi({ description: "The event id; also the webhook-id header.", example: "evt_0123456789abcdefghijklmn" }),
    event: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    next_retry_at: dt,
    delivered_at: dt,
    created_at: dt,
  })
  .openapi("WebhookDelivery", {
    example: {
      id: 55,
      event_id: "evt_0123456789abcdefghijklmn",
      event: "alert.created",
      status: "delivered",
      attempts: 1,
      response_status: 200,
      error: null,
      duration_ms: 143,
      next_retry_at: null,
      delivered_at: "2026-11-24T08:00:02.000Z",
      created_at: "2026-11-24T08:00:01.000Z",
    },
  });

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  payload: WebhookEvent.nullable().openapi({ description: "The JSON body that is sent: one of the events of the `webhooks` section." }),
  response: z
    .object({
      status: z.number().int(),
      body: z.string().openapi({ description: "The first 4 KB of the receiver's answer." }),
      headers: z.record(z.string(), z.string()),
    })
    .nullable()
    .openapi({ description: "The receiver's last answer; null when none arrived." }),
}).openapi("WebhookDeliveryDetail", {
  example: {
    id: 56,
    event_id: "evt_abcdefghijklmnopqrstuvwx",
    event: "webhook.test",
    status: "delivered",
    attempts: 1,
    response_status: 200,
    error: null,
    duration_ms: 98,
    next_retry_at: null,
    delivered_at: "2026-11-24T08:05:00.000Z",
    created_at: "2026-11-24T08:05:00.000Z",
    payload: {
      id: "evt_abcdefghijklmnopqrstuvwx",
      type: "webhook.test",
      api_version: "2026-10-10",
      timestamp: "2026-11-24T08:05:00.000Z",
      data: { webhook: { id: 3, url: "https://hooks.acme.example/emailauth" }, message: "This is a test event." },
    },
    response: { status: 200, body: "ok", headers: { "content-type": "text/plain" } },
  },
});

export const WebhookListMeta = PageMeta.extend({ limit: z.number().int().openapi({ description: "The plan's allowance of endpoints." }) });

export { DeliveryQuery } from "../../services/webhooks/inputs";
