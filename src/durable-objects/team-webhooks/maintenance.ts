// The object's alarm (docs/decisions.md D144): the retry sweep (pending deliveries more than 5 minutes
// past due, or never attempted for 5 minutes, lost their message or their consumer: marked due now and
// sent again) and, once a day at about 03:40 UTC, the 30-day retention of the log (D15). Bounded per run.
import { sql } from "drizzle-orm";
import type { TeamDb } from "./db";

/** A due delivery untouched this long lost its message. */
export const RETRY_GRACE_MS = 5 * 60_000;
/** The delivery log keeps 30 days (D15). */
export const RETENTION_MS = 30 * 86_400_000;
/** Deliveries re-sent per alarm run; more left brings the next run at once. */
export const SWEEP_LIMIT = 500;
/** Rows deleted per purge run; more left brings the next run a second later. */
export const PURGE_LIMIT = 5_000;
const DAY_MS = 86_400_000;
/** Daily, a little after the report objects' purge (03:30 UTC, D123). */
export const PURGE_HOUR_MS = 3 * 3_600_000 + 40 * 60_000;

export function nextPurgeAt(nowMs: number): number {
  const at = nowMs - (nowMs % DAY_MS) + PURGE_HOUR_MS;
  return at > nowMs ? at : at + DAY_MS;
}

const DUE_AT = sql.raw("COALESCE(next_retry_at, updated_at)");

/** Pending deliveries past due by the grace: marked due now; their ids and endpoints, to enqueue. */
export function sweepRetries(db: TeamDb, nowMs: number): { swept: Array<{ id: number; endpointId: number }>; more: boolean } {
  const cutoff = nowMs - RETRY_GRACE_MS;
  const rows = db.all<{ id: number; endpoint_id: number }>(sql`
    UPDATE deliveries SET next_retry_at = ${nowMs}, updated_at = ${nowMs}
    WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND ${DUE_AT} <= ${cutoff} ORDER BY ${DUE_AT} LIMIT ${SWEEP_LIMIT + 1})
    RETURNING id, endpoint_id`);
  // One more than the limit was marked only to learn that more are waiting: it is sent too (harmless).
  return { swept: rows.map((r) => ({ id: r.id, endpointId: r.endpoint_id })), more: rows.length > SWEEP_LIMIT };
}

/** When the next retry sweep has something to do: the earliest pending delivery's due time plus the grace. */
export function nextSweepAt(db: TeamDb): number | null {
  const r = db.get<{ at: number | null }>(sql`SELECT MIN(${DUE_AT}) AS at FROM deliveries WHERE status = 'pending'`);
  return r?.at === null || r?.at === undefined ? null : r.at + RETRY_GRACE_MS;
}

/** Deliveries older than 30 days, then events of that age left without any delivery. */
export function purge(db: TeamDb, nowMs: number): { deliveries: number; events: number; more: boolean } {
  const cutoff = nowMs - RETENTION_MS;
  const d = db.all(sql`
    DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE created_at < ${cutoff} LIMIT ${PURGE_LIMIT}) RETURNING 1 AS one`).length;
  const e = db.all(sql`
    DELETE FROM events WHERE id IN (
      SELECT e.id FROM events e WHERE e.created_at < ${cutoff} AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id) LIMIT ${PURGE_LIMIT})
    RETURNING 1 AS one`).length;
  return { deliveries: d, events: e, more: d === PURGE_LIMIT || e === PURGE_LIMIT };
}

export function isEmpty(db: TeamDb): boolean {
  const r = db.get<{ n: number }>(
    sql`SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM deliveries LIMIT 1)) + (SELECT COUNT(*) FROM (SELECT 1 FROM events LIMIT 1)) AS n`,
  );
  return Number(r?.n ?? 0) === 0;
}
