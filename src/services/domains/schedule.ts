// Domain check scheduling: per-plan intervals, check ids, claiming due domains in one statement, enqueueing with sendBatch. Does I/O (D1, queue).
import { sql } from "drizzle-orm";
import type { Plan } from "../../db/schema";
import { randomId } from "../../lib/crypto";
import { PLAN_LIMITS } from "../../lib/plans";
import { HOUR_MS } from "../../lib/time";
import type { CheckMessage } from "../messages";
import type { Services } from "../../services";

/** A claimed domain's next_check_at moves this far ahead; the consumer then sets the real next time. */
export const CHECK_LEASE_MS = 10 * 60_000;
/** A check in which every lookup failed is retried after this long instead of the plan interval. */
export const FAILED_RETRY_MS = 15 * 60_000;

export const checkIntervalMs = (plan: Plan) => PLAN_LIMITS[plan].check_interval_hours * HOUR_MS;

export const newCheckId = () => randomId("chk", 24);

export async function enqueueChecks(svc: Services, messages: CheckMessage[]): Promise<number> {
  await svc.enqueue.checks(messages);
  return messages.length;
}

export interface ClaimResult {
  ids: number[];
  /** D1 meta of the claim statement (rows read/written), for the benchmark. */
  rowsRead: number;
  rowsWritten: number;
}

/**
 * Claims up to `limit` due verified domains in ONE statement: the UPDATE moves next_check_at past the
 * lease, so an overlapping tick's subquery no longer sees them (D1 runs statements one at a time).
 * The subquery walks domains_due_idx (verified, next_check_at) in order and stops after `limit` rows.
 */
export async function claimDueDomains(svc: Services, now: Date, limit: number): Promise<ClaimResult> {
  const lease = now.getTime() + CHECK_LEASE_MS;
  const res = (await svc.db.run(sql`UPDATE domains SET next_check_at = ${lease} WHERE id IN (
       SELECT id FROM domains INDEXED BY domains_due_idx
       WHERE verified = 1 AND next_check_at <= ${now.getTime()} ORDER BY next_check_at LIMIT ${limit}
     ) RETURNING id`)) as unknown as D1Result<{ id: number }>;
  return { ids: res.results.map((r) => r.id), rowsRead: res.meta.rows_read ?? 0, rowsWritten: res.meta.rows_written ?? 0 };
}

