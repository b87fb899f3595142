// The SMTP TLS part of the mover (docs/decisions.md D130): legacy_tls_reports with their policies and
// failure details move into the domain's object, a few reports per batch. A TLS report derives nothing
// in D1 (no daily summary, D125), so it is stored already summarised: a crash after the object write
// finds it a duplicate on the re-run, which only deletes the legacy rows. Plain SQL over the legacy
// tables, as in legacy.ts. Does I/O (D1, the report objects).
import { sql } from "drizzle-orm";
import type { TlsPolicyReport } from "../../core/tls-rpt/report";
import { REPORT_LIMITS } from "../../lib/plans";
import type { Services } from "../../services";
import { planOf } from "../dmarc/quota";
import { domainStore } from "../domains/domain-store";
import { presentTables } from "./legacy";

/** Reports per batch: one report may hold 10,000 failure details (docs/limits.md). */
export const TLS_BATCH_REPORTS = 5;

const ids = (list: number[]) =>
  sql.join(
    list.map((id) => sql`${id}`),
    sql`, `,
  );
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
const list = (v: unknown): string[] => {
  try {
    const parsed = typeof v === "string" ? JSON.parse(v) : null;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
};
const policyType = (v: unknown): TlsPolicyReport["policyType"] => (v === "tlsa" || v === "sts" ? v : "no-policy-found");

/** Moves the next batch of one domain's legacy TLS reports; the number moved (0 when none is left). */
export async function moveTlsBatch(svc: Services): Promise<number> {
  if (!(await presentTables(svc)).includes("legacy_tls_reports")) return 0;
  const first = await svc.db.all<{ domain_id: number }>(sql`SELECT domain_id FROM legacy_tls_reports ORDER BY domain_id LIMIT 1`);
  const domainId = first[0]?.domain_id;
  if (domainId === undefined) return 0;
  const reports = await svc.db.all<Record<string, unknown>>(sql`
    SELECT id, org_name, report_id, contact, date_begin, date_end, day, successful, failed, via, created_at
    FROM legacy_tls_reports WHERE domain_id = ${domainId} ORDER BY id LIMIT ${TLS_BATCH_REPORTS}`);
  const reportIds = reports.map((r) => Number(r.id));
  const policies = await svc.db.all<Record<string, unknown>>(sql`
    SELECT id, report_id, policy_type, policy_domain, policy_strings, mx_hosts, successful, failed
    FROM legacy_tls_policies WHERE report_id IN (${ids(reportIds)}) ORDER BY id`);
  const policyIds = policies.map((p) => Number(p.id));
  const failures =
    policyIds.length === 0
      ? []
      : await svc.db.all<Record<string, unknown>>(sql`
    SELECT policy_id, result_type, sending_mta_ip, receiving_mx_hostname, receiving_ip, failed_count, failure_reason_code
    FROM legacy_tls_failures WHERE policy_id IN (${ids(policyIds)}) ORDER BY id`);

  const object = domainStore(svc, { id: domainId });
  const retentionDays = REPORT_LIMITS[await planOf(svc, domainId)].retention_days;
  for (const r of reports) {
    const own = policies.filter((p) => Number(p.report_id) === Number(r.id));
    await object.ingestTls({
      orgName: String(r.org_name),
      reportId: String(r.report_id),
      contact: text(r.contact),
      dateBegin: Number(r.date_begin),
      dateEnd: Number(r.date_end),
      day: String(r.day),
      successful: Number(r.successful),
      failed: Number(r.failed),
      via: r.via === "email" ? "email" : "https",
      receivedAt: Number(r.created_at),
      policies: own.map((p) => ({
        policyType: policyType(p.policy_type),
        policyDomain: String(p.policy_domain),
        policyStrings: list(p.policy_strings),
        mxHosts: list(p.mx_hosts),
        successful: Number(p.successful),
        failed: Number(p.failed),
        failures: failures
          .filter((f) => Number(f.policy_id) === Number(p.id))
          .map((f) => ({
            resultType: String(f.result_type),
            sendingMtaIp: text(f.sending_mta_ip),
            receivingMxHostname: text(f.receiving_mx_hostname),
            receivingIp: text(f.receiving_ip),
            failedCount: Number(f.failed_count),
            failureReasonCode: text(f.failure_reason_code),
          })),
      })),
      retentionDays,
      summarised: true,
    });
  }
  // Children first: failures reference policies, policies reference reports.
  if (policyIds.length > 0) await svc.db.run(sql`DELETE FROM legacy_tls_failures WHERE policy_id IN (${ids(policyIds)})`);
  await svc.db.run(sql`DELETE FROM legacy_tls_policies WHERE report_id IN (${ids(reportIds)})`);
  await svc.db.run(sql`DELETE FROM legacy_tls_reports WHERE id IN (${ids(reportIds)})`);
  console.log(JSON.stringify({ level: "info", msg: "report move batch", kind: "tls", domain_id: domainId, reports: reports.length }));
  return reports.length;
}

/** Drops the TLS legacy tables once the reports table is empty (children first). True when dropped now. */
export async function dropTlsIfEmpty(svc: Services): Promise<boolean> {
  const present = await presentTables(svc);
  if (!present.includes("legacy_tls_reports")) return false;
  if ((await svc.db.all(sql`SELECT 1 FROM legacy_tls_reports LIMIT 1`)).length > 0) return false;
  await svc.db.run(sql`DROP TABLE IF EXISTS legacy_tls_failures`);
  await svc.db.run(sql`DROP TABLE IF EXISTS legacy_tls_policies`);
  await svc.db.run(sql`DROP TABLE IF EXISTS legacy_tls_reports`);
  return true;
}
