// DMARC summary retention by plan (docs/limits.md): the daily summaries, reporter days and refusal
// counts older than the team's plan keeps are purged in bounded batches (src/services/purge.ts). The
// report rows themselves are purged by each domain's report object (docs/decisions.md D123). Daily cron
// job. Does I/O (D1).
import { sql } from "drizzle-orm";
import { REPORT_LIMITS } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { type PurgeOutcome, purgeInBatches } from "../purge";

/** The first day (YYYY-MM-DD) each plan still keeps, as a SQL CASE over teams.plan. */
function keptFrom(now: Date) {
  const cut = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10);
  return sql`CASE t.plan WHEN 'starter' THEN ${cut(REPORT_LIMITS.starter.retention_days)} WHEN 'pro' THEN ${cut(REPORT_LIMITS.pro.retention_days)} ELSE ${cut(REPORT_LIMITS.enterprise.retention_days)} END`;
}

const TABLES = ["dmarc_daily", "dmarc_reporter_days", "dmarc_refusals"] as const;

export async function purgeDmarcData(svc: Services, budgetMs?: number) {
  const now = svc.clock.now();
  const out: Partial<Record<(typeof TABLES)[number], PurgeOutcome>> = {};
  for (const table of TABLES) {
    const t = sql.raw(table);
    out[table] = await purgeInBatches(
      svc,
      table,
      (limit) => sql`
      DELETE FROM ${t} WHERE rowid IN (
        SELECT x.rowid FROM ${t} x JOIN domains d ON d.id = x.domain_id JOIN teams t ON t.id = d.team_id
        WHERE x.day < ${keptFrom(now)} LIMIT ${limit})
      RETURNING 1 AS one`,
      budgetMs,
    );
  }
  return out;
}
