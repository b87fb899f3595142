// A domain's accepted DMARC aggregate reports, newest first, and one report with its records, read from
// the domain's report object (a report and its rows are written in one transaction there, so nothing
// half-written is ever shown: docs/decisions.md D122). Records of a report older than 30 days are rolled
// up across reporters (D123): the report keeps its totals, its record list is then empty. Does I/O.
import type { PolicyPublished } from "../../core/reports/types";
import type { ReportRow } from "../../durable-objects/domain-store/dmarc-read";
import { notFound } from "../../lib/errors";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { domainStore } from "../domains/domain-store";

const iso = (ms: number) => new Date(ms).toISOString();
const n = (x: number | null | undefined) => Number(x ?? 0);

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

/** Newest report period first (date_end, then the later arrival), by the (domain_id, date_end) index. */
export async function listReports(svc: Services, ctx: ServiceContext, domainId: number, q: PaginationQuery) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const { rows, total } = await domainStore(svc, domain).dmarcReports(q.per_page, pageOffset(q));
  return { items: rows.map(summary), total };
}

/**
 * One report and a page of its records, by messages. Stored rows are one per (day, source, outcome)
 * (docs/ingestion.md); a record here sums a report's days, so it is one per source and outcome.
 */
export async function getReport(svc: Services, ctx: ServiceContext, domainId: number, reportId: number, q: PaginationQuery) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const found = await domainStore(svc, domain).dmarcReport(reportId, q.per_page, pageOffset(q));
  if (!found) throw notFound("Report");
  const { row, records, total } = found;
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
    total,
  };
}
