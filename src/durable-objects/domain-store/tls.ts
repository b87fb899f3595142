// SMTP TLS reports (RFC 8460 §4) of one domain inside its object (docs/decisions.md D125): a report,
// its policies and failure details in one transaction, and the analytics the D1 path computed.
import { and, eq, sql } from "drizzle-orm";
import type { TlsPolicyReport } from "../../core/tls-rpt/report";
import { chunks, col, num, type StoreDb } from "./db";
import { nextSeq } from "./dmarc-write";
import { tlsReports } from "./schema";

/** Stored policy lines: enough to show the policy; the report may carry more. */
const POLICY_LINES = 50;

export interface TlsIngestInput {
  orgName: string;
  reportId: string;
  contact: string | null;
  /** Epoch ms. */
  dateBegin: number;
  dateEnd: number;
  /** UTC day of date_begin. */
  day: string;
  successful: number;
  failed: number;
  via: "https" | "email";
  receivedAt: number;
  policies: TlsPolicyReport[];
  retentionDays: number;
  summarised?: boolean;
}

export interface TlsIngestResult {
  /** "summarising": another copy holds the report's summarising lease (D159). */
  status: "stored" | "replay" | "duplicate" | "summarising";
  ref: number;
  seq: number;
}

export function ingestTls(db: StoreDb, kv: SyncKvStorage, r: TlsIngestInput): TlsIngestResult {
  const existing = db
    .select({ id: tlsReports.id, summarisedAt: tlsReports.summarisedAt })
    .from(tlsReports)
    .where(and(eq(tlsReports.orgName, r.orgName), eq(tlsReports.reportId, r.reportId)))
    .get();
  if (existing) return { status: existing.summarisedAt === null ? "replay" : "duplicate", ref: existing.id, seq: nextSeq(kv) };
  const ref = db
    .insert(tlsReports)
    .values({
      orgName: r.orgName,
      reportId: r.reportId,
      contact: r.contact,
      dateBegin: r.dateBegin,
      dateEnd: r.dateEnd,
      day: r.day,
      successful: r.successful,
      failed: r.failed,
      via: r.via,
      receivedAt: r.receivedAt,
      summarisedAt: r.summarised ? r.receivedAt : null,
    })
    .returning({ id: tlsReports.id })
    .get().id;
  // Policies one by one (a report holds at most a few dozen): each failure needs its policy's id.
  for (const p of r.policies) {
    const policy = db.get<{ id: number }>(sql`
      INSERT INTO tls_policies (report_ref, day, policy_type, policy_domain, policy_strings, mx_hosts, successful, failed)
      VALUES (${ref}, ${r.day}, ${p.policyType}, ${p.policyDomain}, ${JSON.stringify(p.policyStrings.slice(0, POLICY_LINES).map((s) => s.slice(0, 256)))},
        ${JSON.stringify(p.mxHosts)}, ${p.successful}, ${p.failed}) RETURNING id`);
    const tuples = p.failures.map((f) => [f.resultType, f.sendingMtaIp, f.receivingMxHostname, f.receivingIp, f.failedCount, f.failureReasonCode]);
    for (const chunk of chunks(tuples)) {
      db.run(sql`INSERT INTO tls_failures (policy_ref, report_ref, day, result_type, sending_mta_ip, receiving_mx_hostname, receiving_ip, failed_count, failure_reason_code)
        SELECT ${policy.id}, ${ref}, ${r.day}, ${col(0)}, ${col(1)}, ${col(2)}, ${col(3)}, ${col(4)}, ${col(5)} FROM json_each(${JSON.stringify(chunk)})`);
    }
  }
  kv.put("retention_days", r.retentionDays);
  return { status: "stored", ref, seq: nextSeq(kv) };
}

/** A stored, unsummarised TLS report as its D1 step needs it (the sweep, D160); "duplicate" once summarised, null if absent. */
export interface TlsReplay {
  ref: number;
  report: Omit<TlsIngestInput, "policies" | "retentionDays" | "summarised">;
  policies: Array<{ policyType: string; failures: Array<{ resultType: string; failedCount: number }> }>;
}

export function tlsReplayOf(db: StoreDb, orgName: string, reportId: string): TlsReplay | "duplicate" | null {
  const r = db
    .select()
    .from(tlsReports)
    .where(and(eq(tlsReports.orgName, orgName), eq(tlsReports.reportId, reportId)))
    .get();
  if (!r) return null;
  if (r.summarisedAt !== null) return "duplicate";
  const policies = db.all<{ id: number; type: string }>(sql`SELECT id, policy_type AS type FROM tls_policies WHERE report_ref = ${r.id} ORDER BY id`);
  const failures = db.all<{ policy: number; type: string; n: number }>(
    sql`SELECT policy_ref AS policy, result_type AS type, failed_count AS n FROM tls_failures WHERE report_ref = ${r.id} ORDER BY id`,
  );
  // The row is the report as it was ingested, less its key and its summarised mark.
  const { id, summarisedAt: _pending, via, ...stored } = r;
  return {
    ref: id,
    report: { ...stored, via: via === "email" ? "email" : "https" },
    policies: policies.map((p) => ({
      policyType: p.type,
      failures: failures.filter((f) => f.policy === p.id).map((f) => ({ resultType: f.type, failedCount: num(f.n) })),
    })),
  };
}

export function markTlsSummarised(db: StoreDb, ref: number, nowMs: number): void {
  db.update(tlsReports).set({ summarisedAt: nowMs }).where(eq(tlsReports.id, ref)).run();
}

/** Reports received since `sinceMs` (the daily report count, docs/limits.md). */
export function intake(db: StoreDb, sinceMs: number): number {
  return num(db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM tls_reports WHERE received_at >= ${sinceMs}`)?.n);
}

/** Sessions of the days from `since` up to (not including) `before`: the spike baseline (D102). */
export function baseline(db: StoreDb, since: string, before: string): { ok: number; bad: number } {
  const b = db.get<{ ok: number | null; bad: number | null }>(
    sql`SELECT SUM(successful) AS ok, SUM(failed) AS bad FROM tls_reports WHERE day >= ${since} AND day < ${before}`,
  );
  return { ok: num(b?.ok), bad: num(b?.bad) };
}

export function analytics(db: StoreDb, from: string, to: string, limit: number) {
  const inWindow = sql`day >= ${from} AND day <= ${to}`;
  return {
    summary: db.get<{ reports: number; orgs: number; ok: number | null; bad: number | null; last: number | null }>(sql`
      SELECT COUNT(*) AS reports, COUNT(DISTINCT org_name) AS orgs, SUM(successful) AS ok, SUM(failed) AS bad, MAX(received_at) AS last
      FROM tls_reports WHERE ${inWindow}`),
    daily: db.all<{ day: string; ok: number; bad: number }>(
      sql`SELECT day, SUM(successful) AS ok, SUM(failed) AS bad FROM tls_reports WHERE ${inWindow} GROUP BY day ORDER BY day`,
    ),
    byType: db.all<{ type: string; failed: number; mx: string | null }>(sql`
      SELECT result_type AS type, SUM(failed_count) AS failed, group_concat(DISTINCT receiving_mx_hostname) AS mx
      FROM tls_failures WHERE ${inWindow} GROUP BY result_type ORDER BY failed DESC, type LIMIT ${limit}`),
    byMx: db.all<{ mx: string | null; failed: number; types: string | null }>(sql`
      SELECT receiving_mx_hostname AS mx, SUM(failed_count) AS failed, group_concat(DISTINCT result_type) AS types
      FROM tls_failures WHERE ${inWindow} GROUP BY receiving_mx_hostname ORDER BY failed DESC, mx LIMIT ${limit}`),
    policies: db.all<{ type: string; pdomain: string; mx: string | null; strings: string | null; reports: number; ok: number; bad: number; last: string }>(sql`
      SELECT policy_type AS type, policy_domain AS pdomain, mx_hosts AS mx, MAX(policy_strings) AS strings,
        COUNT(DISTINCT report_ref) AS reports, SUM(successful) AS ok, SUM(failed) AS bad, MAX(day) AS last
      FROM tls_policies WHERE ${inWindow} GROUP BY policy_type, policy_domain, mx_hosts ORDER BY reports DESC, type LIMIT ${limit}`),
  };
}
