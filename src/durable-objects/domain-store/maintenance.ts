// The object's daily alarm (docs/decisions.md D123): purge what the plan no longer keeps, and roll rows
// older than ROLLUP_DAYS up into one per (day, source, outcome) across reporters. Bounded per run.
import { sql } from "drizzle-orm";
import { dayOf, num, type StoreDb } from "./db";

export const ROLLUP_DAYS = 30;
/** Days rolled up per alarm run; more left means the next run comes sooner. */
export const ROLLUP_DAYS_PER_RUN = 60;
const DAY_MS = 86_400_000;
/** Daily, a little after 03:00 UTC (quiet hours for most reporters). */
export const ALARM_HOUR_MS = 3 * 3_600_000 + 30 * 60_000;

export function nextAlarmAt(nowMs: number): number {
  const today = nowMs - (nowMs % DAY_MS);
  const at = today + ALARM_HOUR_MS;
  return at > nowMs ? at : at + DAY_MS;
}

const OUTCOME = sql.raw("source_ip, header_from, disposition, dkim_aligned, spf_aligned, dkim_domain, dkim_selector, dkim_result, spf_domain, spf_result");

export interface MaintenanceResult {
  purged: { rows: number; reports: number; tlsReports: number };
  rolledUpDays: number;
  /** Days still waiting for a rollup (the next run comes in a minute). */
  more: boolean;
}

export function maintain(db: StoreDb, retentionDays: number, nowMs: number): MaintenanceResult {
  const cutDay = dayOf(nowMs - retentionDays * DAY_MS);
  const cutMs = nowMs - retentionDays * DAY_MS;
  const rows = num(db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM rows WHERE day < ${cutDay}`)?.n);
  db.run(sql`DELETE FROM rows WHERE day < ${cutDay}`);
  // A report goes once none of its rows are left and its period ended before the cut.
  const reports = num(
    db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM reports p WHERE p.date_end < ${cutMs} AND NOT EXISTS (SELECT 1 FROM rows r WHERE r.report_ref = p.id)`)
      ?.n,
  );
  db.run(sql`DELETE FROM reports WHERE date_end < ${cutMs} AND NOT EXISTS (SELECT 1 FROM rows r WHERE r.report_ref = reports.id)`);
  const tlsGone = db.all<{ id: number }>(sql`SELECT id FROM tls_reports WHERE received_at < ${cutMs}`).map((r) => r.id);
  if (tlsGone.length > 0) {
    db.run(sql`DELETE FROM tls_failures WHERE report_ref IN (SELECT id FROM tls_reports WHERE received_at < ${cutMs})`);
    db.run(sql`DELETE FROM tls_policies WHERE report_ref IN (SELECT id FROM tls_reports WHERE received_at < ${cutMs})`);
    db.run(sql`DELETE FROM tls_reports WHERE received_at < ${cutMs}`);
  }

  const rollupBefore = dayOf(nowMs - ROLLUP_DAYS * DAY_MS);
  const days = db
    .all<{ day: string }>(
      sql`SELECT DISTINCT day FROM rows WHERE day < ${rollupBefore} AND report_ref IS NOT NULL ORDER BY day LIMIT ${ROLLUP_DAYS_PER_RUN + 1}`,
    )
    .map((d) => d.day);
  for (const day of days.slice(0, ROLLUP_DAYS_PER_RUN)) {
    const last = num(db.get<{ id: number }>(sql`SELECT MAX(id) AS id FROM rows WHERE day = ${day}`)?.id);
    // Every row of the day (earlier rollups included) merges into one per outcome; the originals go.
    db.run(sql`INSERT INTO rows (report_ref, day, ${OUTCOME}, messages)
      SELECT NULL, day, ${OUTCOME}, SUM(messages) FROM rows WHERE day = ${day} AND id <= ${last} GROUP BY ${OUTCOME}`);
    db.run(sql`DELETE FROM rows WHERE day = ${day} AND id <= ${last}`);
  }
  return {
    purged: { rows, reports, tlsReports: tlsGone.length },
    rolledUpDays: Math.min(days.length, ROLLUP_DAYS_PER_RUN),
    more: days.length > ROLLUP_DAYS_PER_RUN,
  };
}
