// DKIM key history retention (docs/decisions.md D139, docs/limits.md): a selector's current key stays as
// long as the selector; a key retired (rotated, revoked or removed) more than 400 days ago is deleted by
// the daily cron in bounded batches, through the partial index dkim_keys_retired_idx. A retired key that
// comes back within the 400 days is the same row again (transition.ts). Does I/O (D1).
import { sql } from "drizzle-orm";
import { HISTORY_DAYS } from "../../lib/retention";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { type PurgeOutcome, purgeInBatches } from "../purge";

export async function purgeRetiredKeys(svc: Services, budgetMs?: number): Promise<PurgeOutcome> {
  const cutoff = svc.clock.now().getTime() - HISTORY_DAYS * DAY_MS;
  return purgeInBatches(
    svc,
    "retired DKIM keys",
    (limit) => sql`
    DELETE FROM dkim_keys WHERE id IN (SELECT id FROM dkim_keys WHERE retired_at IS NOT NULL AND retired_at < ${cutoff} LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
}
