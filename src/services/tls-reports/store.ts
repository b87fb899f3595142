// Writes one parsed TLS report into one domain (docs/decisions.md D125): the report, its policies and
// failure details go to the domain's report object in one transaction; then ONE D1 batch writes the
// tlsrpt.report.received event (its id derived from the report's identity) and a tls_failure alert; then
// the object marks it summarised. A copy arriving before that mark redoes the D1 batch, which adds
// nothing twice; one arriving while another runs it is a duplicate (the summarising lease, D159), and
// a D1 row says the batch is due until it ran, for the sweep (D160). Does I/O (report object, D1, queue).
import type { ParsedTlsReport } from "../../core/tls-rpt/report";
import { REPORT_LIMITS } from "../../lib/plans";
import type { Services } from "../../services";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import { commitAll } from "../commit";
import { planOf } from "../dmarc/quota";
import { domainStore } from "../domains/domain-store";
import { reportEvent } from "../dmarc/summary";
import { type DueReport, dueDone, forgetDue, markDue } from "../dmarc/summary-due";
import { tlsFailureSpike } from "./spike";

export interface TlsStoreTarget {
  id: number;
  teamId: number;
  name: string;
}

export async function storeTlsReport(svc: Services, target: TlsStoreTarget, r: ParsedTlsReport, via: "https" | "email"): Promise<{ duplicate: boolean }> {
  const now = svc.clock.now();
  const day = r.begin.toISOString().slice(0, 10);
  const object = domainStore(svc, target);
  const due: DueReport = { domainId: target.id, kind: "tls", orgName: r.orgName, reportId: r.reportId };
  // Before the object holds the report: if this Worker dies before its D1 step, the sweep finds it (D160).
  await markDue(svc, due, now);
  const stored = await object.ingestTls({
    orgName: r.orgName,
    reportId: r.reportId,
    contact: r.contact,
    dateBegin: r.begin.getTime(),
    dateEnd: r.end.getTime(),
    day,
    successful: r.successful,
    failed: r.failed,
    via,
    receivedAt: now.getTime(),
    policies: r.policies,
    retentionDays: REPORT_LIMITS[await planOf(svc, target.id)].retention_days,
  });
  // Another copy runs the D1 step right now (it holds the lease, D159): this one is a duplicate.
  if (stored.status === "summarising") return { duplicate: true };
  if (stored.status === "duplicate") {
    await forgetDue(svc, due);
    return { duplicate: true };
  }
  await summariseTlsReport(svc, target, r, via, stored.ref, now);
  return { duplicate: false };
}

/** The report's D1 step (event, alert, the due row deleted) and the object's mark; also run by the sweep (D160). */
export async function summariseTlsReport(
  svc: Services,
  target: TlsStoreTarget,
  r: Pick<ParsedTlsReport, "orgName" | "reportId" | "begin" | "end" | "successful" | "failed"> & {
    policies: Array<{ policyType: string; failures: Array<{ resultType: string; failedCount: number }> }>;
  },
  via: "https" | "email",
  ref: number,
  now: Date,
): Promise<void> {
  const { db } = svc;
  const object = domainStore(svc, target);
  try {
    // The baseline is the days before the report's own day, which this report does not change.
    const spike = await tlsFailureSpike(svc, target, r, r.begin.toISOString().slice(0, 10));
    const event = await reportEvent(
      db,
      {
        type: "tlsrpt.report.received",
        teamId: target.teamId,
        domain: { id: target.id, name: target.name },
        data: {
          report: {
            org_name: r.orgName,
            report_id: r.reportId,
            begin: r.begin.toISOString(),
            end: r.end.toISOString(),
            successful: r.successful,
            failed: r.failed,
            policies: r.policies.map((p) => p.policyType),
            via,
          },
        },
      },
      JSON.stringify([r.orgName, r.reportId]),
      now,
    );
    const alerts = spike ? upsertAlerts(db, [spike], now, await openAlertKeys(db, target.teamId, target.id)) : { statements: [], eventIds: [] };
    await commitAll(
      svc,
      [event.statement, ...alerts.statements, dueDone(db, { domainId: target.id, kind: "tls", orgName: r.orgName, reportId: r.reportId })],
      [event.id, ...alerts.eventIds],
    );
  } catch (e) {
    await object.releaseSummary("tls", ref).catch(() => undefined);
    throw e;
  }
  await object.markTlsSummarised(ref, now.getTime());
}
