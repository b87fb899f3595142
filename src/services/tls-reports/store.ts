// Writes one parsed TLS report into one domain in ONE D1 batch: report, policies, failure details, the
// tlsrpt.report.received event and a tls_failure alert. A duplicate loses on the unique index. Does I/O (D1, queue).
import { and, eq, sql } from "drizzle-orm";
import type { ParsedTlsReport } from "../../core/tls-rpt/report";
import { tlsFailures, tlsPolicies, tlsReports } from "../../db/schema";
import type { Services } from "../../services";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import { commitAll, type Statement } from "../commit";
import { jsonChunks, jsonCol as col } from "../json-rows";
import { buildEvent } from "../events/emit";
import { tlsFailureSpike } from "./spike";

export interface TlsStoreTarget {
  id: number;
  teamId: number;
  name: string;
}

/** Stored policy lines: enough to show the policy; the report may carry more. */
const POLICY_LINES = 50;

export async function storeTlsReport(svc: Services, target: TlsStoreTarget, r: ParsedTlsReport, via: "https" | "email"): Promise<{ duplicate: boolean }> {
  const { db } = svc;
  const now = svc.clock.now();
  const identity = and(eq(tlsReports.domainId, target.id), eq(tlsReports.orgName, r.orgName), eq(tlsReports.reportId, r.reportId));
  const seen = await db.select({ id: tlsReports.id }).from(tlsReports).where(identity).get();
  if (seen) return { duplicate: true };
  const day = r.begin.toISOString().slice(0, 10);
  const reportRef = sql`(SELECT id FROM tls_reports WHERE domain_id = ${target.id} AND org_name = ${r.orgName} AND report_id = ${r.reportId})`;
  const statements: Statement[] = [
    db.insert(tlsReports).values({
      domainId: target.id,
      orgName: r.orgName,
      reportId: r.reportId,
      contact: r.contact,
      dateBegin: r.begin,
      dateEnd: r.end,
      day,
      successful: r.successful,
      failed: r.failed,
      via,
      receivedAt: now,
    }),
  ];
  const policyTuples = r.policies.map((p) => [
    p.policyType,
    p.policyDomain,
    JSON.stringify(p.policyStrings.slice(0, POLICY_LINES).map((s) => s.slice(0, 256))),
    JSON.stringify(p.mxHosts),
    p.successful,
    p.failed,
  ]);
  // Column order of tls_policies: id, report_id, domain_id, day, policy_type, policy_domain, policy_strings, mx_hosts, successful, failed.
  for (const json of jsonChunks(policyTuples)) {
    statements.push(
      db.insert(tlsPolicies).select(sql`SELECT NULL, ${reportRef}, ${target.id}, ${day}, ${col(0)}, ${col(1)}, ${col(2)}, ${col(3)}, ${col(4)}, ${col(5)}
        FROM json_each(${json}) ORDER BY key`),
    );
  }
  // A failure names its policy by position: policies were inserted in report order, so the nth id of this report is the nth policy.
  const failureTuples = r.policies.flatMap((p, i) =>
    p.failures.map((f) => [i, f.resultType, f.sendingMtaIp, f.receivingMxHostname, f.receivingIp, f.failedCount, f.failureReasonCode]),
  );
  for (const json of jsonChunks(failureTuples)) {
    statements.push(
      db.insert(tlsFailures).select(sql`SELECT NULL, p.id, ${target.id}, ${day}, ${col(1)}, ${col(2)}, ${col(3)}, ${col(4)}, ${col(5)}, ${col(6)}
        FROM json_each(${json}) JOIN (SELECT id, ROW_NUMBER() OVER (ORDER BY id) - 1 AS pos FROM tls_policies WHERE report_id = ${reportRef}) p
          ON p.pos = ${col(0)}`),
    );
  }
  const event = buildEvent(
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
    now,
  );
  statements.push(event.statement);
  const spike = await tlsFailureSpike(svc, target, r, day);
  const alerts = spike ? upsertAlerts(db, [spike], now, await openAlertKeys(db, target.teamId, target.id)) : { statements: [], eventIds: [] };
  statements.push(...alerts.statements);
  try {
    await commitAll(svc, statements, [event.id, ...alerts.eventIds]);
  } catch (error) {
    // A concurrent copy won the unique index (tls_reports_identity_uq): the batch rolled back whole.
    if (await db.select({ id: tlsReports.id }).from(tlsReports).where(identity).get()) return { duplicate: true };
    throw error;
  }
  return { duplicate: false };
}
