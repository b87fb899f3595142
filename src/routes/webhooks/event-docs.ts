// Every event type as an OpenAPI 3.1 `webhooks` entry: the Standard Webhooks envelope with the
// event's `data` schema from src/services/events/schemas.ts (the same schemas the emitter is checked
// against), so receivers generate their types instead of writing them from prose.
import { z } from "@hono/zod-openapi";
import { API_VERSION, EVENT_TYPES, type EventType } from "../../services/events/emit";
import { EVENT_DATA, type EventPayload } from "../../services/events/schemas";

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");

const envelope = (type: EventType) =>
  z
    .object({
      id: z.string().openapi({ description: "Event id; also the webhook-id header.", example: "evt_0123456789abcdefghijklmn" }),
      type: z.literal(type),
      api_version: z.literal(API_VERSION),
      timestamp: z.string().openapi({ description: "When the event happened (ISO 8601).", example: "2026-11-24T10:00:00.000Z" }),
      data: EVENT_DATA[type],
    })
    .openapi(`${pascal(type)}Event`, { description: `The \`${type}\` event (docs/events.md).` });

const ENVELOPES = Object.fromEntries(EVENT_TYPES.map((t) => [t, envelope(t)])) as { [K in EventType]: ReturnType<typeof envelope> };

/** Any event, discriminated by `type`: the payload a delivery carries. */
export const WebhookEvent =
  // zod cannot infer the correlated union from a mapped list; EventPayload states it (same schemas).
  (
    z.discriminatedUnion(
      "type",
      EVENT_TYPES.map((t) => ENVELOPES[t]) as unknown as [ReturnType<typeof envelope>, ...ReturnType<typeof envelope>[]],
    ) as unknown as z.ZodType<EventPayload>
  ).openapi("WebhookEvent");

const SIGNATURE_HEADERS = z.object({
  "webhook-id": z.string().openapi({ description: "The event id (Standard Webhooks)." }),
  "webhook-timestamp": z.string().openapi({ description: "Unix seconds when this attempt was signed." }),
  "webhook-signature": z
    .string()
    .openapi({ description: "Space-separated `v1,<base64 HMAC-SHA256>` signatures of `id.timestamp.body` (two during a secret rotation)." }),
});

interface WebhookRegistry {
  registerWebhook(config: unknown): void;
  registerComponent(type: "securitySchemes", name: string, component: unknown): unknown;
}

export function registerEventWebhooks(registry: WebhookRegistry): void {
  registry.registerComponent("securitySchemes", "webhookSignature", {
    type: "apiKey",
    in: "header",
    name: "webhook-signature",
    description:
      "Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of webhook-id.webhook-timestamp.body>` keyed with the endpoint's secret (whsec_..., base64 after the prefix). Receivers verify it; they never send it.",
  });
  for (const type of EVENT_TYPES) {
    registry.registerWebhook({
      method: "post",
      path: type,
      operationId: `on${pascal(type)}`,
      summary: `The ${type} event`,
      tags: ["Webhooks"],
      security: [{ webhookSignature: [] }],
      request: { headers: SIGNATURE_HEADERS, body: { required: true, content: { "application/json": { schema: ENVELOPES[type] } } } },
      responses: {
        200: { description: "Any 2xx acknowledges the delivery." },
        410: { description: "Gone: the endpoint is disabled at once." },
      },
    });
  }
}
