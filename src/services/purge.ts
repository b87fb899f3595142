// Retention work for the daily cron: delete in bounded batches until nothing is left or the time budget
// is spent, so any backlog is caught up over successive runs and every run says what remains. Does I/O (D1).
import { type SQL, sql } from "drizzle-orm";
import type { Services } from "../services";

/** Wall time one purge may spend per cron run (the daily cron allows minutes; other jobs share it). */
export const PURGE_BUDGET_MS = 60_000;
/** Rows per DELETE statement: short statements keep D1 responsive for the API meanwhile. */
export const PURGE_BATCH = 2_000;

export interface PurgeOutcome {
  deleted: number;
  /** True when the budget ran out before the last batch came back short: more is left for the next run. */
  more: boolean;
}

/**
 * Runs `statement(limit)` (a `DELETE ... WHERE id IN (SELECT ... LIMIT limit) RETURNING 1`) until a batch
 * comes back short or the budget is spent.
 */
export async function purgeInBatches(svc: Services, name: string, statement: (limit: number) => SQL, budgetMs = PURGE_BUDGET_MS): Promise<PurgeOutcome> {
  const started = Date.now();
  let deleted = 0;
  for (;;) {
    const gone = await svc.db.all<{ one: number }>(statement(PURGE_BATCH));
    deleted += gone.length;
    if (gone.length < PURGE_BATCH) return log(name, { deleted, more: false });
    if (Date.now() - started >= budgetMs) return log(name, { deleted, more: true });
  }
}

/**
 * Rows whose time column (set when they stopped mattering: resolved, retired, copied) is older than
 * `cutoffMs`, through the table's partial index on that column (`WHERE column IS NOT NULL`), in batches.
 */
export function purgeStampedBefore(
  svc: Services,
  name: string,
  table: string,
  column: string,
  cutoffMs: number,
  budgetMs = PURGE_BUDGET_MS,
): Promise<PurgeOutcome> {
  const t = sql.identifier(table);
  const c = sql.identifier(column);
  return purgeInBatches(
    svc,
    name,
    (limit) => sql`DELETE FROM ${t} WHERE id IN (SELECT id FROM ${t} WHERE ${c} IS NOT NULL AND ${c} < ${cutoffMs} LIMIT ${limit}) RETURNING 1 AS one`,
    budgetMs,
  );
}

/** Domains per statement of purgeByDomain: each statement reads at most this many domains' rows through their primary key. */
export const PURGE_DOMAINS = 100;

/**
 * For tables keyed by (domain_id, ...) with no index on the purged column: walks the domains in id order,
 * PURGE_DOMAINS at a time, and runs `statement(after, upTo)` (a `DELETE ... WHERE domain_id > after AND
 * domain_id <= upTo AND ...`), so every statement is a range of the primary key, never a table scan.
 */
export async function purgeByDomain(
  svc: Services,
  name: string,
  statement: (after: number, upTo: number) => SQL,
  budgetMs = PURGE_BUDGET_MS,
): Promise<PurgeOutcome> {
  const started = Date.now();
  let deleted = 0;
  let after = 0;
  for (;;) {
    const ids = await svc.db.all<{ id: number }>(sql`SELECT id FROM domains WHERE id > ${after} ORDER BY id LIMIT ${PURGE_DOMAINS}`);
    const upTo = ids.at(-1)?.id;
    if (upTo === undefined) return log(name, { deleted, more: false });
    const result = await svc.db.run(statement(after, upTo));
    deleted += Number(result.meta.changes ?? 0);
    after = upTo;
    if (ids.length < PURGE_DOMAINS) return log(name, { deleted, more: false });
    if (Date.now() - started >= budgetMs) return log(name, { deleted, more: true });
  }
}

function log(name: string, out: PurgeOutcome): PurgeOutcome {
  if (out.deleted > 0 || out.more) console.log(JSON.stringify({ level: out.more ? "warn" : "info", msg: "retention purge", purge: name, ...out }));
  return out;
}
