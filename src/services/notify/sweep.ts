// The notification sweep (every minute, from the cron): a message whose window closed or whose retry is due
// but whose queue message was lost (or was only a first hop of a long wait) is nudged again. Bounded per run.
// Does I/O (D1, queue).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";
import { nudge } from "./route";

export const SWEEP_LIMIT = 200;
/**
 * A message is left this long past due before the sweep nudges it again. Short: a second nudge is harmless (the
 * send claims the message atomically), while a lost one would hold the alerts until the next minute's sweep.
 * (The notify benchmark saw the first burst after a local server start wait for the sweep: docs/capacity.md.)
 */
export const SWEEP_GRACE_MS = 10_000;

export async function sweepNotifications(svc: Services, now: Date): Promise<number> {
  const due = now.getTime() - SWEEP_GRACE_MS;
  const rows = await svc.db.all<{ id: number; team_id: number }>(sql`
    SELECT id, team_id FROM notification_messages
    WHERE (status = 'collecting' AND send_after <= ${due})
       OR (status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now.getTime()}) AND COALESCE(next_retry_at, 0) <= ${due})
    ORDER BY id LIMIT ${SWEEP_LIMIT}`);
  for (const r of rows) await nudge(svc, r.team_id, r.id, 0);
  return rows.length;
}

/** Days a channel's delivery log keeps finished messages (docs/limits.md), like the webhook delivery log. */
export const LOG_RETENTION_DAYS = 30;

/** Daily: finished messages older than the retention go, with their items and attempts (cascade). Bounded per run. */
export async function purgeNotificationLog(svc: Services, now: Date, limit = 5_000): Promise<number> {
  const before = now.getTime() - LOG_RETENTION_DAYS * 86_400_000;
  const gone = await svc.db.all<{ id: number }>(sql`
    DELETE FROM notification_messages WHERE id IN (
      SELECT id FROM notification_messages WHERE status IN ('delivered', 'failed', 'skipped') AND created_at < ${before} LIMIT ${limit}
    ) RETURNING id`);
  return gone.length;
}
