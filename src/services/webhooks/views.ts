// API shapes of webhook endpoints and deliveries (docs/events.md, docs/decisions.md D10). No I/O.
import type { DeliveryRecord } from "../../durable-objects/team-webhooks/types";
import type { webhookEndpoints } from "../../db/schema";
import { iso } from "../../lib/time";
import type { EventPayload } from "../events/schemas";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
/** A delivery as the team's webhook log holds it (times in epoch ms; docs/decisions.md D140). */
export type DeliveryRow = DeliveryRecord;

const isoMs = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function endpointView(row: EndpointRow, secret?: string) {
  return {
    id: row.id,
    url: row.url,
    description: row.description ?? null,
    events: row.events,
    domain_ids: row.domainIds ?? null,
    enabled: row.enabled,
    failure_count: row.failureCount,
    disabled_at: iso(row.disabledAt),
    disabled_reason: row.disabledReason ?? null,
    last_success_at: iso(row.lastSuccessAt),
    last_failure_at: iso(row.lastFailureAt),
    created_at: iso(row.createdAt),
    ...(secret !== undefined ? { secret } : {}),
  };
}
export type EndpointView = ReturnType<typeof endpointView>;

export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    event_id: row.eventId,
    event: row.eventType,
    status: row.status,
    attempts: row.attempts,
    response_status: row.responseStatus ?? null,
    error: row.error ?? null,
    duration_ms: row.durationMs ?? null,
    next_retry_at: isoMs(row.nextRetryAt),
    delivered_at: isoMs(row.deliveredAt),
    created_at: isoMs(row.createdAt),
  };
}
export type DeliveryView = ReturnType<typeof deliveryView>;

/** The single-delivery view: the outbound payload and the last response (body capped at 4 KB). */
export function deliveryDetailView(row: DeliveryRow, payload: unknown) {
  const headers = row.responseHeaders;
  const answered = row.responseStatus !== null;
  return {
    ...deliveryView(row),
    // The stored body was built by buildEvent from the event schemas (src/services/events/schemas.ts).
    payload: (payload ?? null) as EventPayload | null,
    response: answered ? { status: row.responseStatus as number, body: row.responseBody ?? "", headers: headers ?? {} } : null,
  };
}
export type DeliveryDetailView = ReturnType<typeof deliveryDetailView>;
