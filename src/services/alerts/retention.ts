// Alert retention (docs/limits.md, docs/decisions.md D138): an open alert stays until it is resolved; a
// resolved one is kept 90 days after its resolution, then the daily cron deletes it in bounded batches
// through the partial index alerts_resolved_idx. Does I/O (D1).
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { type PurgeOutcome, purgeStampedBefore } from "../purge";

export const RESOLVED_ALERT_DAYS = 90;

export function purgeResolvedAlerts(svc: Services, budgetMs?: number): Promise<PurgeOutcome> {
  const cutoff = svc.clock.now().getTime() - RESOLVED_ALERT_DAYS * DAY_MS;
  return purgeStampedBefore(svc, "resolved alerts", "alerts", "resolved_at", cutoff, budgetMs);
}
