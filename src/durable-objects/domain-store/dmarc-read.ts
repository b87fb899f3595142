// The per-domain DMARC views, read inside the domain's object: the same SQL the D1 path ran over
// dmarc_rows, minus the domain filter (the object holds one domain) (docs/decisions.md D121).
import { sql, type SQL } from "drizzle-orm";
import { num, type StoreDb } from "./db";
import type { DmarcWindowQuery, Intake } from "./types";

const PASS_EXPR = sql`CASE WHEN r.dkim_aligned = 1 OR r.spf_aligned = 1 THEN r.messages ELSE 0 END`;
const PASSED = sql`(r.dkim_aligned = 1 OR r.spf_aligned = 1)`;

export function analytics(db: StoreDb, q: DmarcWindowQuery) {
  const rows = sql`rows r WHERE r.day >= ${q.from} AND r.day <= ${q.to}`;
  const own = sql`(lower(r.spf_domain) = ${q.domainName} OR lower(r.spf_domain) LIKE ${`%.${q.domainName}`})`;
  return {
    reports: db.get<{ reports: number; reporters: number; first: number | null; last: number | null }>(sql`
      SELECT COUNT(*) AS reports, COUNT(DISTINCT org_name) AS reporters, MIN(date_begin) AS first, MAX(date_end) AS last
      FROM reports WHERE date_end >= ${q.startMs} AND date_begin < ${q.endMs}`),
    daily: db.all<{ day: string; messages: number; pass: number; spf_aligned: number; dkim_aligned: number }>(sql`
      SELECT r.day AS day, SUM(r.messages) AS messages, SUM(${PASS_EXPR}) AS pass,
        SUM(r.spf_aligned * r.messages) AS spf_aligned, SUM(r.dkim_aligned * r.messages) AS dkim_aligned
      FROM ${rows} GROUP BY r.day ORDER BY r.day`),
    sources: db.all<{
      ip: string;
      messages: number;
      pass: number;
      spf_pass: number;
      dkim_pass: number;
      spf_aligned: number;
      dkim_aligned: number;
      own_spf_fail: number;
    }>(sql`
      SELECT r.source_ip AS ip, SUM(r.messages) AS messages, SUM(${PASS_EXPR}) AS pass,
        SUM(CASE WHEN r.spf_result = 'pass' THEN r.messages ELSE 0 END) AS spf_pass,
        SUM(CASE WHEN r.dkim_result = 'pass' THEN r.messages ELSE 0 END) AS dkim_pass,
        SUM(r.spf_aligned * r.messages) AS spf_aligned, SUM(r.dkim_aligned * r.messages) AS dkim_aligned,
        SUM(CASE WHEN coalesce(r.spf_result, '') <> 'pass' AND ${own} THEN r.messages ELSE 0 END) AS own_spf_fail
      FROM ${rows} GROUP BY r.source_ip ORDER BY messages DESC, ip LIMIT ${q.maxSources}`),
    total: db.get<{ sources: number }>(sql`SELECT COUNT(DISTINCT r.source_ip) AS sources FROM ${rows}`),
    latest: db.get<{ policy: string | null }>(sql`SELECT policy FROM reports ORDER BY date_end DESC LIMIT 1`),
  };
}

export interface SourceRow {
  ip: string;
  messages: number;
  pass: number;
  spf_pass: number;
  dkim_pass: number;
  spf_aligned: number;
  dkim_aligned: number;
  first_day: string;
  last_day: string;
}

function outcome(result: "pass" | "fail" | undefined): SQL {
  return result === "pass" ? sql` AND ${PASSED}` : result === "fail" ? sql` AND NOT ${PASSED}` : sql``;
}

/** Grouped per source in the window; `result` keeps only passing or failing messages. */
export function sourceRows(db: StoreDb, from: string, to: string, result: "pass" | "fail" | undefined, limit: number, offset: number): SourceRow[] {
  return db.all<SourceRow>(sql`
    SELECT r.source_ip AS ip, SUM(r.messages) AS messages, SUM(CASE WHEN ${PASSED} THEN r.messages ELSE 0 END) AS pass,
      SUM(CASE WHEN r.spf_result = 'pass' THEN r.messages ELSE 0 END) AS spf_pass,
      SUM(CASE WHEN r.dkim_result = 'pass' THEN r.messages ELSE 0 END) AS dkim_pass,
      SUM(r.spf_aligned * r.messages) AS spf_aligned, SUM(r.dkim_aligned * r.messages) AS dkim_aligned,
      MIN(r.day) AS first_day, MAX(r.day) AS last_day
    FROM rows r WHERE r.day >= ${from} AND r.day <= ${to}${outcome(result)}
    GROUP BY r.source_ip ORDER BY messages DESC, ip LIMIT ${limit} OFFSET ${offset}`);
}

export function countSources(db: StoreDb, from: string, to: string, result: "pass" | "fail" | undefined): number {
  return num(db.get<{ n: number }>(sql`SELECT COUNT(DISTINCT r.source_ip) AS n FROM rows r WHERE r.day >= ${from} AND r.day <= ${to}${outcome(result)}`)?.n);
}

export interface ReportRow {
  id: number;
  org_name: string;
  email: string | null;
  report_id: string;
  date_begin: number;
  date_end: number;
  received_at: number;
  policy: string | null;
  messages: number;
  pass: number;
}

const REPORT_COLUMNS = sql`id, org_name, email, report_id, date_begin, date_end, received_at, policy, messages, pass`;

/** Newest report period first (date_end, then the later arrival). */
export function listReports(db: StoreDb, limit: number, offset: number): { rows: ReportRow[]; total: number } {
  return {
    rows: db.all<ReportRow>(sql`SELECT ${REPORT_COLUMNS} FROM reports ORDER BY date_end DESC, id DESC LIMIT ${limit} OFFSET ${offset}`),
    total: num(db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM reports`)?.n),
  };
}

export interface RecordRow {
  source_ip: string;
  count: number;
  disposition: string | null;
  header_from: string | null;
  dkim_domain: string | null;
  dkim_selector: string | null;
  dkim_result: string | null;
  dkim_aligned: number;
  spf_domain: string | null;
  spf_result: string | null;
  spf_aligned: number;
}

/** One report and a page of its records (one per source and outcome, summed over its days), or null. */
export function getReport(db: StoreDb, id: number, limit: number, offset: number): { row: ReportRow; records: RecordRow[]; total: number } | null {
  const row = db.get<ReportRow | undefined>(sql`SELECT ${REPORT_COLUMNS} FROM reports WHERE id = ${id}`);
  if (!row) return null;
  const o = sql`r.source_ip, r.header_from, r.disposition, r.dkim_domain, r.dkim_selector, r.dkim_result, r.dkim_aligned, r.spf_domain, r.spf_result, r.spf_aligned`;
  return {
    row,
    records: db.all<RecordRow>(sql`
      SELECT ${o}, SUM(r.messages) AS count FROM rows r WHERE r.report_ref = ${id}
      GROUP BY ${o} ORDER BY count DESC, ${o} LIMIT ${limit} OFFSET ${offset}`),
    total: num(db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM (SELECT 1 FROM rows r WHERE r.report_ref = ${id} GROUP BY ${o})`)?.n),
  };
}

/** Reports and records received since `sinceMs`, and the reports of one reporter (docs/limits.md). */
export function intake(db: StoreDb, sinceMs: number, reporter?: { orgName: string; email: string | null }): Intake {
  const all = db.get<{ n: number; records: number | null }>(sql`SELECT COUNT(*) AS n, SUM(records) AS records FROM reports WHERE received_at >= ${sinceMs}`);
  const mine = reporter
    ? db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM reports WHERE received_at >= ${sinceMs} AND org_name = ${reporter.orgName}
        AND ${reporter.email === null ? sql`email IS NULL` : sql`email = ${reporter.email}`}`)
    : undefined;
  return { reports: num(all?.n), records: num(all?.records), reporterReports: num(mine?.n) };
}

/** Sources that passed DMARC since `fromDay`, by volume (blocklist lookups of checks). */
export function alignedSendingIps(db: StoreDb, fromDay: string, limit: number): string[] {
  return db
    .all<{ ip: string }>(sql`
      SELECT r.source_ip AS ip FROM rows r WHERE r.day >= ${fromDay} AND ${PASSED}
      GROUP BY r.source_ip ORDER BY SUM(r.messages) DESC LIMIT ${limit}`)
    .map((r) => r.ip);
}

export interface EvidenceRow {
  key: string;
  messages: number | null;
  pass: number | null;
  sources: string | null;
}

const SUMS = sql`SUM(messages) AS messages, SUM(CASE WHEN dkim_result = 'pass' THEN messages ELSE 0 END) AS pass, group_concat(DISTINCT source_ip) AS sources`;

/** DKIM evidence per selector of d=<domain> since `fromDay` (the DKIM inventory views). */
export function selectorEvidence(db: StoreDb, domainName: string, fromDay: string, limit: number, selector?: string): EvidenceRow[] {
  return db.all<EvidenceRow>(sql`
    SELECT lower(dkim_selector) AS key, ${SUMS} FROM rows
    WHERE day >= ${fromDay} AND dkim_selector IS NOT NULL AND lower(dkim_domain) = ${domainName}
      ${selector ? sql`AND lower(dkim_selector) = ${selector.toLowerCase()}` : sql``}
    GROUP BY lower(dkim_selector) LIMIT ${limit}`);
}

/** DKIM signing domains seen since `fromDay`, most messages first. */
export function signers(db: StoreDb, fromDay: string, limit: number): EvidenceRow[] {
  return db.all<EvidenceRow>(sql`
    SELECT lower(dkim_domain) AS key, ${SUMS} FROM rows WHERE day >= ${fromDay} AND dkim_domain IS NOT NULL
    GROUP BY lower(dkim_domain) ORDER BY SUM(messages) DESC LIMIT ${limit}`);
}
