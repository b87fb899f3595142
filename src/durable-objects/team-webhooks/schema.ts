// The data model of one team's webhook log (docs/decisions.md D140): the events fanned out to the team
// and one delivery per (event, endpoint) with its last attempt, plus each endpoint's failure streak
// (D143). One team per object, so no column names the team. Times are integer milliseconds since the
// epoch.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Every event fanned out to the team, matched or not, with the exact outbound body (D10). */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(), // evt_...
    domainId: integer("domain_id"),
    type: text("type").notNull(),
    payload: text("payload").notNull(), // JSON: {id, type, api_version, timestamp, data}
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("events_created_idx").on(t.createdAt), index("events_domain_idx").on(t.domainId, t.createdAt)],
);

/** One delivery of one event to one endpoint; its id is assigned by the object and never reused (D142). */
export const deliveries = sqliteTable(
  "deliveries",
  {
    id: integer("id").primaryKey(),
    endpointId: integer("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    responseHeaders: text("response_headers"), // JSON object or null
    error: text("error"),
    durationMs: integer("duration_ms"),
    nextRetryAt: integer("next_retry_at"),
    /** Set while a consumer holds the attempt (claim lease): a manual redelivery must not start a second one. */
    leasedUntil: integer("leased_until"),
    deliveredAt: integer("delivered_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("deliveries_event_endpoint_uq").on(t.eventId, t.endpointId),
    index("deliveries_endpoint_created_idx").on(t.endpointId, t.createdAt),
    index("deliveries_status_retry_idx").on(t.status, t.nextRetryAt),
    index("deliveries_created_idx").on(t.createdAt),
  ],
);

/**
 * An endpoint's consecutive-failure streak, changed in the same transaction as the outcome that moves
 * it; `seq` grows with every change, so D1's copy (webhook_endpoints.stats_seq) keeps only the newest
 * (D143). `disable` is what the latest change asks of D1: null, 'gone' (410) or 'consecutive_failures'.
 */
export const endpointStreaks = sqliteTable("endpoint_streaks", {
  endpointId: integer("endpoint_id").primaryKey(),
  failureCount: integer("failure_count").notNull(),
  lastSuccessAt: integer("last_success_at"),
  lastFailureAt: integer("last_failure_at"),
  disable: text("disable", { enum: ["gone", "consecutive_failures"] }),
  seq: integer("seq").notNull(),
});
