// Cron work for webhooks: the outbox sweep (lost fan-out nudges). The retry sweep and the 30-day
// retention of the delivery log run in each team's webhook log object, as its alarm (docs/decisions.md
// D144). Does I/O (D1, queue).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";

export const OUTBOX_GRACE_MS = 60_000; // docs/decisions.md D9: events older than a minute
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
