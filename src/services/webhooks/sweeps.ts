// Cron work for webhooks: the outbox sweep (lost fan-out nudges), the retry sweep (lost or stuck
// deliver messages) and the 30-day retention of the delivery log. Does I/O (D1, queue).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";
import { DAY_MS } from "../../lib/time";
import { purgeInBatches } from "../purge";
import { enqueueDeliveries } from "./fanout";

export const OUTBOX_GRACE_MS = 60_000; // docs/decisions.md D9: events older than a minute
export const RETRY_GRACE_MS = 5 * 60_000; // a due delivery untouched this long lost its message
export const RETENTION_MS = 30 * DAY_MS; // docs/decisions.md D15: delivery log retention
const SWEEP_LIMIT = 500;

/** Enqueues fan-out for events still not fanned out a minute after they were written. */
export async function sweepOutbox(svc: Services): Promise<number> {
  const cutoff = svc.clock.now().getTime() - OUTBOX_GRACE_MS;
  const rows = await svc.db.all<{ id: string }>(sql`
    SELECT id FROM events WHERE fanned_out_at IS NULL AND created_at <= ${cutoff}
    ORDER BY created_at LIMIT ${SWEEP_LIMIT}`);
  await svc.enqueue.deliveries(rows.map((r) => ({ kind: "fanout", event_id: r.id })));
  return rows.length;
}

/**
 * Pending deliveries more than 5 minutes past due (or never attempted for 5 minutes) lost their
 * message or their consumer: they are marked due now and enqueued again. Marking them moves them
 * out of the next sweep's window, so a slow queue is not flooded with copies.
 */
export async function sweepRetries(svc: Services): Promise<number> {
  const now = svc.clock.now().getTime();
  const cutoff = now - RETRY_GRACE_MS;
  const rows = await svc.db.all<{ id: number }>(sql`
    UPDATE deliveries SET next_retry_at = ${now}, updated_at = ${now}
    WHERE id IN (
      SELECT id FROM deliveries
      WHERE status = 'pending'
        AND ((next_retry_at IS NOT NULL AND next_retry_at <= ${cutoff}) OR (next_retry_at IS NULL AND updated_at <= ${cutoff}))
      ORDER BY next_retry_at LIMIT ${SWEEP_LIMIT})
    RETURNING id`);
  await enqueueDeliveries(
    svc,
    rows.map((r) => r.id),
  );
  return rows.length;
}

/**
 * Deletes deliveries older than 30 days, then fanned-out events of that age with none left, in bounded
 * batches until done or the budget is spent (a backlog is caught up over successive runs).
 */
export async function purgeDeliveries(svc: Services, budgetMs?: number): Promise<{ deliveries: number; events: number; more: boolean }> {
  const cutoff = svc.clock.now().getTime() - RETENTION_MS;
  const deliveries = await purgeInBatches(
    svc,
    "deliveries",
    (limit) => sql`
    DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE created_at < ${cutoff} LIMIT ${limit}) RETURNING 1 AS one`,
    budgetMs,
  );
  const events = await purgeInBatches(
    svc,
    "events",
    (limit) => sql`
    DELETE FROM events WHERE id IN (
      SELECT e.id FROM events e
      WHERE e.fanned_out_at IS NOT NULL AND e.created_at < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
      LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
  return { deliveries: deliveries.deleted, events: events.deleted, more: deliveries.more || events.more };
}
