// DMARC retention in D1 (docs/limits.md, docs/decisions.md D137): the daily summaries and reporters' days
// are kept SUMMARY_DAYS, all the alerts read; the refusal counts the plan's DMARC retention, as the DMARC
// view shows them for any window. Purged in bounded batches (src/services/purge.ts). The report data itself
// stays in each domain's object for the plan's retention (D123). Daily cron job. Does I/O (D1).
import { sql } from "drizzle-orm";
import { REPORT_LIMITS } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { type PurgeOutcome, purgeByDomain, purgeInBatches } from "../purge";
import { SPIKE_RULE } from "./spike";

/**
 * Days of daily summaries D1 keeps: the failure-spike baseline reaches back 14 days before a report's
 * first day, and reports about days older than SPIKE_RULE.maxAgeDays are not judged for a spike; the
 * silent-reporter rule reads 10 days. Everything older lives in the domain's object only.
 */
export const SUMMARY_DAYS = SPIKE_RULE.maxAgeDays + SPIKE_RULE.baselineDays;

const cutDay = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10);

/** The first day (YYYY-MM-DD) each plan still keeps, as a SQL CASE over teams.plan. */
function keptFrom(now: Date) {
  const cut = (days: number) => cutDay(now, days);
  return sql`CASE t.plan WHEN 'starter' THEN ${cut(REPORT_LIMITS.starter.retention_days)} WHEN 'pro' THEN ${cut(REPORT_LIMITS.pro.retention_days)} ELSE ${cut(REPORT_LIMITS.enterprise.retention_days)} END`;
}

const SUMMARIES = ["dmarc_daily", "dmarc_reporter_days"] as const;

export async function purgeDmarcData(svc: Services, budgetMs?: number) {
  const now = svc.clock.now();
  const out: Partial<Record<(typeof SUMMARIES)[number] | "dmarc_refusals", PurgeOutcome>> = {};
  for (const table of SUMMARIES) {
    const t = sql.raw(table);
    out[table] = await purgeByDomain(
      svc,
      table,
      (after, upTo) => sql`DELETE FROM ${t} WHERE domain_id > ${after} AND domain_id <= ${upTo} AND day < ${cutDay(now, SUMMARY_DAYS)}`,
      budgetMs,
    );
  }
  out.dmarc_refusals = await purgeInBatches(
    svc,
    "dmarc_refusals",
    (limit) => sql`
    DELETE FROM dmarc_refusals WHERE rowid IN (
      SELECT x.rowid FROM dmarc_refusals x JOIN domains d ON d.id = x.domain_id JOIN teams t ON t.id = d.team_id
      WHERE x.day < ${keptFrom(now)} LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
  return out;
}
