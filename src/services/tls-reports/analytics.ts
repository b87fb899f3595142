// GET /domains/{domain}/tls: SMTP TLS report analytics over `days` (RFC 8460): success rate, daily
// series, failures by result type (with advice) and by MX host, and the policies the reports saw. Does I/O (D1).
import { sql } from "drizzle-orm";
import { tlsFailureAdvice } from "../../core/tls-rpt/advice";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { tlsRptRua } from "./address";

/** Rows per list (failure types, MX hosts, policies): the biggest first. */
export const TLS_LIST_LIMIT = 50;

const dayStr = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const n = (x: number | null | undefined) => Number(x ?? 0);
const jsonList = (x: string | null): string[] => {
  try {
    const v = x === null ? [] : JSON.parse(x);
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
  } catch {
    return [];
  }
};

export async function getTlsAnalytics(svc: Services, ctx: ServiceContext, domainId: number, days: number) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const todayMs = Date.parse(`${dayStr(svc.clock.now().getTime())}T00:00:00Z`);
  const from = dayStr(todayMs - (days - 1) * DAY_MS);
  const to = dayStr(todayMs);
  // Every list reads its table's (domain_id, day) index.
  const inWindow = (alias: string) => {
    const a = sql.raw(alias);
    return sql`${a}.domain_id = ${domain.id} AND ${a}.day >= ${from} AND ${a}.day <= ${to}`;
  };

  const [summary, daily, byType, byMx, policies] = await Promise.all([
    svc.db.get<{ reports: number; orgs: number; ok: number | null; bad: number | null; last: number | null }>(sql`
      SELECT COUNT(*) AS reports, COUNT(DISTINCT org_name) AS orgs, SUM(successful) AS ok, SUM(failed) AS bad, MAX(created_at) AS last
      FROM tls_reports r WHERE ${inWindow("r")}`),
    svc.db.all<{ day: string; ok: number; bad: number }>(sql`
      SELECT day, SUM(successful) AS ok, SUM(failed) AS bad FROM tls_reports r WHERE ${inWindow("r")} GROUP BY day ORDER BY day`),
    svc.db.all<{ type: string; failed: number; mx: string | null }>(sql`
      SELECT result_type AS type, SUM(failed_count) AS failed, group_concat(DISTINCT receiving_mx_hostname) AS mx
      FROM tls_failures f WHERE ${inWindow("f")} GROUP BY result_type ORDER BY failed DESC, type LIMIT ${TLS_LIST_LIMIT}`),
    svc.db.all<{ mx: string | null; failed: number; types: string | null }>(sql`
      SELECT receiving_mx_hostname AS mx, SUM(failed_count) AS failed, group_concat(DISTINCT result_type) AS types
      FROM tls_failures f WHERE ${inWindow("f")} GROUP BY receiving_mx_hostname ORDER BY failed DESC, mx LIMIT ${TLS_LIST_LIMIT}`),
    svc.db.all<{ type: string; pdomain: string; mx: string | null; strings: string | null; reports: number; ok: number; bad: number; last: string }>(sql`
      SELECT policy_type AS type, policy_domain AS pdomain, mx_hosts AS mx, MAX(policy_strings) AS strings,
        COUNT(DISTINCT report_id) AS reports, SUM(successful) AS ok, SUM(failed) AS bad, MAX(day) AS last
      FROM tls_policies p WHERE ${inWindow("p")} GROUP BY policy_type, policy_domain, mx_hosts ORDER BY reports DESC, type LIMIT ${TLS_LIST_LIMIT}`),
  ]);

  const ok = n(summary?.ok);
  const bad = n(summary?.bad);
  const seriesByDay = new Map(daily.map((d) => [d.day, d]));
  const series = [];
  for (let ms = todayMs - (days - 1) * DAY_MS; ms <= todayMs; ms += DAY_MS) {
    const d = seriesByDay.get(dayStr(ms));
    series.push({ day: dayStr(ms), successful: n(d?.ok), failed: n(d?.bad) });
  }
  const policyTypes = [...new Set(policies.map((p) => p.type))];
  return {
    domain: { id: domain.id, name: domain.name },
    window: { days, from, to },
    rua: tlsRptRua(domain, svc.config),
    summary: {
      reports: n(summary?.reports),
      organizations: n(summary?.orgs),
      successful: ok,
      failed: bad,
      success_rate: ok + bad > 0 ? Math.round((ok / (ok + bad)) * 10_000) / 10_000 : null,
      last_report_at: summary?.last ? new Date(summary.last).toISOString() : null,
    },
    daily: series,
    failures_by_type: byType.map((t) => {
      const mxHosts = (t.mx ?? "").split(",").filter((h) => h !== "");
      return { result_type: t.type, failed: n(t.failed), mx_hosts: mxHosts, advice: tlsFailureAdvice({ resultType: t.type, mxHosts, policyTypes }) };
    }),
    failures_by_mx: byMx.map((m) => ({ mx_host: m.mx, failed: n(m.failed), result_types: (m.types ?? "").split(",").filter((x) => x !== "") })),
    policies: policies.map((p) => ({
      policy_type: p.type,
      policy_domain: p.pdomain,
      mx_hosts: jsonList(p.mx),
      policy_strings: jsonList(p.strings),
      reports: n(p.reports),
      successful: n(p.ok),
      failed: n(p.bad),
      last_day: p.last,
    })),
  };
}
