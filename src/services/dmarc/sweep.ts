// The sweep of unpublished reports (docs/ingestion.md): a report still "processing" this long after it
// arrived was left by a crash; its rows and row go, in bounded batches. Every-minute cron job. Does I/O (D1).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";
import { purgeInBatches } from "../purge";

/** Far longer than an ingestion runs (a 100,000-record report takes a few seconds, and a Worker cannot
 *  spend minutes of CPU on one): an older "processing" row was left by a crash. */
export const UNPUBLISHED_GRACE_MS = 2 * 60_000;

export async function sweepUnpublishedReports(svc: Services, budgetMs = 20_000) {
  const cutoff = svc.clock.now().getTime() - UNPUBLISHED_GRACE_MS;
  const rows = await purgeInBatches(
    svc,
    "unpublished dmarc_rows",
    (limit) => sql`
    DELETE FROM dmarc_rows WHERE id IN (
      SELECT r.id FROM dmarc_rows r JOIN dmarc_reports p ON p.id = r.report_id
      WHERE p.status = 'processing' AND p.created_at < ${cutoff} LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
  const reports = await purgeInBatches(
    svc,
    "unpublished dmarc_reports",
    (limit) => sql`
    DELETE FROM dmarc_reports WHERE id IN (
      SELECT p.id FROM dmarc_reports p INDEXED BY dmarc_reports_processing_idx
      WHERE p.status = 'processing' AND p.created_at < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM dmarc_rows r WHERE r.report_id = p.id) LIMIT ${limit})
    RETURNING 1 AS one`,
    budgetMs,
  );
  return { rows, reports };
}
