// Domain check scheduling: per-plan intervals, check ids, claiming due domains in one statement, enqueueing with sendBatch. Does I/O (D1, queue).
import { sql } from "drizzle-orm";
import type { Plan } from "../../db/schema";
import { randomId } from "../../lib/crypto";
import { PLAN_LIMITS } from "../../lib/plans";
import { HOUR_MS } from "../../lib/time";
import type { CheckMessage } from "../messages";
import type { Services } from "../../services";
import { batchable } from "../audit-when";
import { commit, type Statement } from "../commit";

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
  /** The check id reserved for each claimed domain (domains.pending_check_id). */
  checks: Array<{ domainId: number; checkId: string }>;
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
  const t = now.getTime();
  const lease = t + CHECK_LEASE_MS;
  // Each claimed domain gets its pending check id in the same statement; a domain whose queued check
  // is still inside its lease is not claimed again (a long queue backlog never doubles checks).
  const res = (await svc.db.run(sql`UPDATE domains SET next_check_at = ${lease},
       pending_check_id = 'chk_' || lower(hex(randomblob(12))), pending_check_at = ${t}
     WHERE id IN (
       SELECT id FROM domains INDEXED BY domains_due_idx
       WHERE verified = 1 AND next_check_at <= ${t} AND (pending_check_id IS NULL OR pending_check_at <= ${t - CHECK_LEASE_MS})
       ORDER BY next_check_at LIMIT ${limit}
     )
     RETURNING id, pending_check_id`)) as unknown as D1Result<{ id: number; pending_check_id: string }>;
  return {
    ids: res.results.map((r) => r.id),
    checks: res.results.map((r) => ({ domainId: r.id, checkId: r.pending_check_id })),
    rowsRead: res.meta.rows_read ?? 0,
    rowsWritten: res.meta.rows_written ?? 0,
  };
}

/**
 * Reserves a check of one domain: a new id when none is pending (or the pending one outlived its
 * lease), else the pending one. `created` says whether the caller must enqueue it.
 */
export async function reserveCheck(
  svc: Services,
  domainId: number,
  now: Date,
  /** Statements for the same batch, after the reservation (e.g. its audit entry, guarded on the fresh id). */
  after: (fresh: string) => Statement[] = () => [],
): Promise<{ checkId: string; created: boolean }> {
  const t = now.getTime();
  const fresh = newCheckId();
  const [rows] = await commit(svc, [
    batchable(
      svc,
      svc.db.all<{ pending_check_id: string; pending_check_at: number }>(sql`
    UPDATE domains SET
      pending_check_id = CASE WHEN pending_check_id IS NULL OR pending_check_at <= ${t - CHECK_LEASE_MS} THEN ${fresh} ELSE pending_check_id END,
      pending_check_at = CASE WHEN pending_check_id IS NULL OR pending_check_at <= ${t - CHECK_LEASE_MS} THEN ${t} ELSE pending_check_at END
    WHERE id = ${domainId}
    RETURNING pending_check_id, pending_check_at`),
    ),
    ...after(fresh),
  ]);
  const row = rows[0];
  if (!row) throw new Error(`domain ${domainId} vanished while reserving a check`);
  return { checkId: row.pending_check_id, created: row.pending_check_id === fresh };
}
