// Writes one parsed TLS report into one domain (docs/decisions.md D125): the report, its policies and
// failure details go to the domain's report object in one transaction; then ONE D1 batch writes the
// tlsrpt.report.received event (its id derived from the report's identity) and a tls_failure alert; then
// the object marks it summarised. A copy arriving before that mark redoes the D1 batch, which adds
// nothing twice. Does I/O (report object, D1, queue).
import type { ParsedTlsReport } from "../../core/tls-rpt/report";
import { REPORT_LIMITS } from "../../lib/plans";
import type { Services } from "../../services";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import { commitAll } from "../commit";
import { planOf } from "../dmarc/quota";
import { domainStore } from "../domains/domain-store";
import { reportEvent } from "../dmarc/summary";
import { tlsFailureSpike } from "./spike";

export interface TlsStoreTarget {
  id: number;
  teamId: number;
  name: string;
}

export async function storeTlsReport(svc: Services, target: TlsStoreTarget, r: ParsedTlsReport, via: "https" | "email"): Promise<{ duplicate: boolean }> {
  const { db } = svc;
  const now = svc.clock.now();
  const day = r.begin.toISOString().slice(0, 10);
  const object = domainStore(svc, target);
  // The baseline is read before this report is stored (days before its own day: it would not count anyway).
  const spike = await tlsFailureSpike(svc, target, r, day);
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
  if (stored.status === "duplicate") return { duplicate: true };
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
  await commitAll(svc, [event.statement, ...alerts.statements], [event.id, ...alerts.eventIds]);
  await object.markTlsSummarised(stored.ref, now.getTime());
  return { duplicate: false };
}
