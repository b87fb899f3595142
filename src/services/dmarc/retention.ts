// DMARC data retention by plan (docs/limits.md): rows, reports and refusal counts older than the
// team's plan keeps are purged in bounded batches (src/services/purge.ts). Daily cron job. Does I/O (D1).
import { sql } from "drizzle-orm";
import { REPORT_LIMITS } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { purgeInBatches } from "../purge";

/** The first day (YYYY-MM-DD) each plan still keeps, as a SQL CASE over teams.plan. */
function keptFrom(now: Date, column: "day" | "ms") {
  const cut = (days: number) => (column === "day" ? new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10) : now.getTime() - days * DAY_MS);
  return sql`CASE t.plan WHEN 'starter' THEN ${cut(REPORT_LIMITS.starter.retention_days)} WHEN 'pro' THEN ${cut(REPORT_LIMITS.pro.retention_days)} ELSE ${cut(REPORT_LIMITS.enterprise.retention_days)} END`;
}

export async function purgeDmarcData(svc: Services, budgetMs?: number) {
  const now = svc.clock.now();
  const rows = await purgeInBatches(
    svc,
    "dmarc_rows",
    (limit) => sql`
    DELETE FROM dmarc_rows WHERE id IN (
      SELECT r.id FROM dmarc_rows r JOIN domains d ON d.id = r.domain_id JOIN teams t ON t.id = d.team_id
      WHERE r.day < ${keptFrom(now, "day")} LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
  // A report goes once none of its rows are left (its newest day is past the retention).
  const reports = await purgeInBatches(
    svc,
    "dmarc_reports",
    (limit) => sql`
    DELETE FROM dmarc_reports WHERE id IN (
      SELECT p.id FROM dmarc_reports p JOIN domains d ON d.id = p.domain_id JOIN teams t ON t.id = d.team_id
      WHERE p.status = 'complete' AND p.date_end < ${keptFrom(now, "ms")}
        AND NOT EXISTS (SELECT 1 FROM dmarc_rows r WHERE r.report_id = p.id) LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
  const refusals = await purgeInBatches(
    svc,
    "dmarc_refusals",
    (limit) => sql`
    DELETE FROM dmarc_refusals WHERE rowid IN (
      SELECT x.rowid FROM dmarc_refusals x JOIN domains d ON d.id = x.domain_id JOIN teams t ON t.id = d.team_id
      WHERE x.day < ${keptFrom(now, "day")} LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
  return { rows, reports, refusals };
}
