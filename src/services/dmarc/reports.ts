// A domain's accepted DMARC aggregate reports, newest first, and one report with its records. Only
// published (complete) reports exist here: a half-written one is never shown (docs/decisions.md D16).
// Does I/O (D1).
import { sql } from "drizzle-orm";
import type { PolicyPublished } from "../../core/reports/types";
import { notFound } from "../../lib/errors";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";

interface ReportRow {
  id: number;
  org_name: string;
  email: string | null;
  report_id: string;
  date_begin: number;
  date_end: number;
  received_at: number;
  policy: string | null;
  messages: number | null;
  pass: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const n = (x: number | null | undefined) => Number(x ?? 0);
/** A message passes DMARC when its SPF or DKIM result aligned (RFC 7489 §6.6.2), as the analytics count it. */
const PASS = sql`CASE WHEN r.dkim_aligned = 1 OR r.spf_aligned = 1 THEN r.messages ELSE 0 END`;

function summary(r: ReportRow) {
  const messages = n(r.messages);
  return {
    id: r.id,
    org_name: r.org_name,
    report_id: r.report_id,
    date_begin: iso(r.date_begin),
    date_end: iso(r.date_end),
    messages,
    pass: n(r.pass),
    fail: messages - n(r.pass),
    received_at: iso(r.received_at),
  };
}

const reportColumns = sql`p.id AS id, p.org_name AS org_name, p.email AS email, p.report_id AS report_id, p.date_begin AS date_begin,
  p.date_end AS date_end, p.created_at AS received_at, p.policy AS policy,
  (SELECT SUM(r.messages) FROM dmarc_rows r WHERE r.report_id = p.id) AS messages,
  (SELECT SUM(${PASS}) FROM dmarc_rows r WHERE r.report_id = p.id) AS pass`;

/** Newest report period first (date_end, then the later arrival), by the (domain_id, date_end) index. */
export async function listReports(svc: Services, ctx: ServiceContext, domainId: number, q: PaginationQuery) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const where = sql`p.domain_id = ${domain.id} AND p.status = 'complete'`;
  const [rows, total] = await Promise.all([
    svc.db.all<ReportRow>(
      sql`SELECT ${reportColumns} FROM dmarc_reports p WHERE ${where} ORDER BY p.date_end DESC, p.id DESC LIMIT ${q.per_page} OFFSET ${pageOffset(q)}`,
    ),
    svc.db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM dmarc_reports p WHERE ${where}`),
  ]);
  return { items: rows.map(summary), total: n(total?.n) };
}

interface RecordRow {
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

/**
 * One report and a page of its records, by messages. Stored rows are one per (day, source, outcome)
 * (docs/ingestion.md); a record here sums a report's days, so it is one per source and outcome.
 */
export async function getReport(svc: Services, ctx: ServiceContext, domainId: number, reportId: number, q: PaginationQuery) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const row = await svc.db.get<ReportRow>(
    sql`SELECT ${reportColumns} FROM dmarc_reports p WHERE p.id = ${reportId} AND p.domain_id = ${domain.id} AND p.status = 'complete'`,
  );
  if (!row) throw notFound("Report");
  const outcome = sql`r.source_ip, r.header_from, r.disposition, r.dkim_domain, r.dkim_selector, r.dkim_result, r.dkim_aligned, r.spf_domain, r.spf_result, r.spf_aligned`;
  const [records, total] = await Promise.all([
    svc.db.all<RecordRow>(sql`
      SELECT ${outcome}, SUM(r.messages) AS count FROM dmarc_rows r WHERE r.report_id = ${row.id}
      GROUP BY ${outcome} ORDER BY count DESC, ${outcome} LIMIT ${q.per_page} OFFSET ${pageOffset(q)}`),
    svc.db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM (SELECT 1 FROM dmarc_rows r WHERE r.report_id = ${row.id} GROUP BY ${outcome})`),
  ]);
  const policy = row.policy ? (JSON.parse(row.policy) as Partial<PolicyPublished>) : null;
  return {
    report: {
      ...summary(row),
      email: row.email,
      policy_published: policy && {
        domain: policy.domain ?? domain.name,
        p: policy.p ?? null,
        sp: policy.sp ?? null,
        np: policy.np ?? null,
        adkim: policy.adkim ?? null,
        aspf: policy.aspf ?? null,
        pct: policy.pct ?? null,
        fo: policy.fo ?? null,
        testing: policy.testing ?? null,
        discovery_method: policy.discoveryMethod ?? null,
      },
      records: records.map((r) => ({
        source_ip: r.source_ip,
        count: n(r.count),
        disposition: r.disposition,
        header_from: r.header_from,
        dkim: { domain: r.dkim_domain, selector: r.dkim_selector, result: r.dkim_result, aligned: r.dkim_aligned === 1 },
        spf: { domain: r.spf_domain, result: r.spf_result, aligned: r.spf_aligned === 1 },
        dmarc: r.dkim_aligned === 1 || r.spf_aligned === 1 ? ("pass" as const) : ("fail" as const),
      })),
    },
    total: n(total?.n),
  };
}
