// GET /domains/{domain}/tls: SMTP TLS report analytics over `days` (RFC 8460): success rate, daily
// series, failures by result type (with advice) and by MX host, and the policies the reports saw. Does
// I/O (the domain's report object, docs/decisions.md D125).
import { tlsFailureAdvice } from "../../core/tls-rpt/advice";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { domainStore } from "../domains/domain-store";
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
  const { summary, daily, byType, byMx, policies } = await domainStore(svc, domain).tlsAnalytics(from, to, TLS_LIST_LIMIT);

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
