// The mover (docs/decisions.md D130-D132): copies the DMARC reports that migration 0008 left in D1
// (legacy_dmarc_*) into each domain's report object, one bounded batch at a time, as the every-minute
// cron's job. What is left in the legacy tables IS the work list, so the job resumes wherever a crash
// or the time budget stopped it, and nothing can be lost or done twice:
//   1. each complete legacy report is ingested into the object under its own identity (org_name,
//      report_id) with its original arrival time; a copy the object already holds answers "replay"
//      (stored, D1 step not confirmed) or "duplicate" (confirmed) and adds nothing (D122);
//   2. one D1 batch writes the absolute day totals the object answered (newest seq wins) and the
//      reporter's day, then the object marks the reports summarised;
//   3. the moved legacy reports and their rows are deleted (and reports still 'processing',
//      left half-written by the old protocol: they never counted, docs/ingestion.md).
// A crash after 1 re-runs 1 as "replay" and writes the same totals; after 2, as "duplicate" with the
// totals already in D1. No event is emitted: these reports were announced when they arrived.
// Does I/O (D1, the report objects).
import { REPORT_LIMITS } from "../../lib/plans";
import type { Services } from "../../services";
import { commitAll, type Statement } from "../commit";
import type { DmarcRowTuple } from "../../durable-objects/domain-store/types";
import { planOf } from "../dmarc/quota";
import { dailyStatements, reporterDayStatement } from "../dmarc/summary";
import { domainStore } from "../domains/domain-store";
import { deleteReports, dropDmarcIfEmpty, type LegacyReport, type LegacyRow, nextBatch, presentTables, reportRows } from "./legacy";
import { dropTlsIfEmpty, moveTlsBatch } from "./tls";

/** Rows per batch: a batch is at least one report, then whole reports up to this many rows. */
export const MOVE_BATCH_ROWS = 500;
/** Wall time one cron tick spends moving (the tick runs every minute, beside the other jobs). */
export const MOVE_BUDGET_MS = 20_000;
/** Reports one tick moves at most: two object calls each keep a tick far below the Workers limit of subrequests per invocation (D130). */
export const MOVE_REPORTS_PER_TICK = 400;

export interface MoveOutcome {
  batches: number;
  reports: number;
  rows: number;
  /** Legacy tables dropped in this run (empty). */
  dropped: boolean;
  /** True when the budget ran out with legacy reports left. */
  more: boolean;
}

const rowTuple = (r: LegacyRow): DmarcRowTuple => [r[1], r[2], r[3], r[4], r[5] === 1 ? 1 : 0, r[6] === 1 ? 1 : 0, r[7], r[8], r[9], r[10], r[11], r[12]];

function policyOf(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null; // a policy that never parsed is not worth stopping the move for
  }
}

/** Moves one batch of one domain: object writes, then the D1 summaries, then the legacy deletes. */
export async function moveBatch(svc: Services, domainId: number, reports: LegacyReport[]): Promise<{ rows: number }> {
  const object = domainStore(svc, { id: domainId });
  const retentionDays = REPORT_LIMITS[await planOf(svc, domainId)].retention_days;
  const statements: Statement[] = [];
  const toMark: number[] = [];
  let rows = 0;
  const complete = reports.filter((r) => r.status === "complete");
  const byReport = await reportRows(
    svc,
    complete.map((r) => r.id),
  );
  for (const report of complete) {
    const legacyRows = byReport.get(report.id) ?? [];
    rows += legacyRows.length;
    const stored = await object.ingestDmarc({
      orgName: report.orgName,
      reportId: report.reportId,
      email: report.email,
      version: report.version,
      dateBegin: report.dateBegin,
      dateEnd: report.dateEnd,
      records: report.records,
      policy: policyOf(report.policy),
      receivedAt: report.receivedAt,
      rows: legacyRows.map(rowTuple),
      retentionDays,
    });
    // "summarising" (a crashed run's lease, D159) is replayed too: this batch deletes the legacy rows next.
    if (stored.status === "duplicate") continue;
    statements.push(...dailyStatements(svc.db, domainId, stored.days, stored.seq), reporterDayStatement(svc.db, domainId, report.orgName, report.receivedAt));
    toMark.push(stored.ref);
  }
  await commitAll(svc, statements);
  const now = svc.clock.now().getTime();
  for (const ref of toMark) await object.markSummarised(ref, now);
  await deleteReports(
    svc,
    reports.map((r) => r.id),
  );
  return { rows };
}

/** The cron job: batches until none is left or the budget is spent; drops the emptied tables. */
export async function moveLegacyReports(svc: Services, budgetMs = MOVE_BUDGET_MS, batchRows = MOVE_BATCH_ROWS): Promise<MoveOutcome> {
  const out: MoveOutcome = { batches: 0, reports: 0, rows: 0, dropped: false, more: false };
  const present = await presentTables(svc);
  const started = Date.now();
  const spent = () => Date.now() - started >= budgetMs || out.reports >= MOVE_REPORTS_PER_TICK;
  if (present.includes("legacy_dmarc_reports") || present.includes("legacy_dmarc_rows")) {
    for (;;) {
      const batch = await nextBatch(svc, batchRows);
      if (batch === null) {
        out.dropped = await dropDmarcIfEmpty(svc);
        break;
      }
      const moved = await moveBatch(svc, batch.domainId, batch.reports);
      out.batches++;
      out.reports += batch.reports.length;
      out.rows += moved.rows;
      console.log(JSON.stringify({ level: "info", msg: "report move batch", domain_id: batch.domainId, reports: batch.reports.length, rows: moved.rows }));
      if (spent()) {
        out.more = true;
        break;
      }
    }
  }
  // The SMTP TLS history once the DMARC history is gone.
  if (!out.more && present.includes("legacy_tls_reports")) {
    for (;;) {
      const moved = await moveTlsBatch(svc);
      if (moved === 0) {
        out.dropped = (await dropTlsIfEmpty(svc)) || out.dropped;
        break;
      }
      out.batches++;
      out.reports += moved;
      if (spent()) {
        out.more = true;
        break;
      }
    }
  }
  if (out.batches > 0 || out.dropped) console.log(JSON.stringify({ level: out.more ? "warn" : "info", msg: "report moves", ...out }));
  return out;
}
