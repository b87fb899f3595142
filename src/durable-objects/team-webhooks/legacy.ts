// Deliveries moved from D1's legacy_deliveries (docs/decisions.md D145): each with its event's body,
// under its own id and state, insert-or-ignore by id, so a re-run after a crash adds nothing. The id
// counter then moves past the highest id that arrived, so a new delivery can never take one.
import { sql } from "drizzle-orm";
import { reserveDeliveryIds, type TeamDb } from "./db";
import { deliveries, events } from "./schema";
import type { LegacyDelivery } from "./types";

export function importLegacy(db: TeamDb, kv: SyncKvStorage, rows: LegacyDelivery[]): { inserted: number } {
  let inserted = 0;
  for (const r of rows) {
    const ev = r.event;
    db.insert(events).values({ id: ev.id, domainId: ev.domainId, type: ev.type, payload: ev.payload, createdAt: ev.createdAt }).onConflictDoNothing().run();
    const done = db
      .insert(deliveries)
      .values({
        id: r.id,
        endpointId: r.endpointId,
        eventId: r.eventId,
        eventType: r.eventType,
        status: r.status,
        attempts: r.attempts,
        responseStatus: r.responseStatus,
        responseBody: r.responseBody,
        responseHeaders: r.responseHeaders === null ? null : JSON.stringify(r.responseHeaders),
        error: r.error,
        durationMs: r.durationMs,
        nextRetryAt: r.nextRetryAt,
        // A lease taken by the old release is void here: the alarm re-sends what it held.
        leasedUntil: null,
        deliveredAt: r.deliveredAt,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      })
      .onConflictDoNothing()
      .returning({ id: deliveries.id })
      .all();
    inserted += done.length;
  }
  const highest = rows.reduce((m, r) => Math.max(m, r.id), 0);
  if (highest > 0) reserveDeliveryIds(kv, highest);
  return { inserted };
}

/** Counts for the mover's tests and logs. */
export function counts(db: TeamDb): { events: number; deliveries: number; pending: number } {
  const r = db.get<{ e: number; d: number; p: number }>(sql`
    SELECT (SELECT COUNT(*) FROM events) AS e, (SELECT COUNT(*) FROM deliveries) AS d,
      (SELECT COUNT(*) FROM deliveries WHERE status = 'pending') AS p`);
  return { events: Number(r?.e ?? 0), deliveries: Number(r?.d ?? 0), pending: Number(r?.p ?? 0) };
}
