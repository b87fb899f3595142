// TLS report retention by plan (docs/limits.md): a report, its policies and failure details (cascade)
// go once it arrived longer ago than the team's plan keeps DMARC data. Daily cron job. Does I/O (D1).
import { sql } from "drizzle-orm";
import { REPORT_LIMITS } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { purgeInBatches } from "../purge";

export async function purgeTlsReports(svc: Services, budgetMs?: number) {
  const now = svc.clock.now().getTime();
  const cut = (days: number) => now - days * DAY_MS;
  const kept = sql`CASE t.plan WHEN 'starter' THEN ${cut(REPORT_LIMITS.starter.retention_days)} WHEN 'pro' THEN ${cut(REPORT_LIMITS.pro.retention_days)} ELSE ${cut(REPORT_LIMITS.enterprise.retention_days)} END`;
  // By the received_at index (tls_reports_received_idx); the oldest plan cut bounds the scan.
  const oldest = cut(Math.min(...Object.values(REPORT_LIMITS).map((l) => l.retention_days)));
  return purgeInBatches(
    svc,
    "tls_reports",
    (limit) => sql`
    DELETE FROM tls_reports WHERE id IN (
      SELECT r.id FROM tls_reports r JOIN domains d ON d.id = r.domain_id JOIN teams t ON t.id = d.team_id
      WHERE r.created_at < ${oldest} AND r.created_at < ${kept} LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
}
