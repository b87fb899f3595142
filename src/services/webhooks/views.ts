// API shapes of webhook endpoints and deliveries (docs/events.md, docs/decisions.md D10). No I/O.
import type { deliveries, webhookEndpoints } from "../../db/schema";
import { iso } from "../../lib/time";
import type { EventPayload } from "../events/schemas";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof deliveries.$inferSelect;

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
    next_retry_at: iso(row.nextRetryAt),
    delivered_at: iso(row.deliveredAt),
    created_at: iso(row.createdAt),
  };
}
export type DeliveryView = ReturnType<typeof deliveryView>;

/** The single-delivery view: the outbound payload and the last response (body capped at 4 KB). */
export function deliveryDetailView(row: DeliveryRow, payload: unknown) {
  const headers = (row.responseHeaders ?? null) as Record<string, string> | null;
  const answered = row.responseStatus !== null && row.responseStatus !== undefined;
  return {
    ...deliveryView(row),
    // The stored body was built by buildEvent from the event schemas (src/services/events/schemas.ts).
    payload: (payload ?? null) as EventPayload | null,
    response: answered ? { status: row.responseStatus as number, body: row.responseBody ?? "", headers: headers ?? {} } : null,
  };
}
export type DeliveryDetailView = ReturnType<typeof deliveryDetailView>;
