// DKIM key history retention (docs/decisions.md D139, docs/limits.md): a selector's current key stays as
// long as the selector; a key retired (rotated, revoked or removed) more than 400 days ago is deleted by
// the daily cron in bounded batches, through the partial index dkim_keys_retired_idx. A retired key that
// comes back within the 400 days is the same row again (transition.ts). Does I/O (D1).
import { HISTORY_DAYS } from "../../lib/retention";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { type PurgeOutcome, purgeStampedBefore } from "../purge";

export function purgeRetiredKeys(svc: Services, budgetMs?: number): Promise<PurgeOutcome> {
  const cutoff = svc.clock.now().getTime() - HISTORY_DAYS * DAY_MS;
  return purgeStampedBefore(svc, "retired DKIM keys", "dkim_keys", "retired_at", cutoff, budgetMs);
}
