// What a team's digest says (docs/decisions.md D189), built once per team and period and mailed to each
// member due: the team's domains with their grade and plan (the domain detail verb), the grade at the
// period's start (the check history), DMARC volume and pass rate (the domain object's analytics read),
// the TLS failure rate (the TLS analytics verb), and the team's alerts: open ones, new senders raised in
// the period, silent reporters still open. Reads only; does I/O (D1, the domains' objects).
import type { DigestDomain, DigestModel } from "../../core/notify/digest";
import { GRADES, type Grade } from "../../core/posture/score";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { listAlerts, type AlertView } from "../alerts/list-alerts";
import { listChecks } from "../checks/history";
import { systemContext, type ServiceContext } from "../context";
import { resolveWindow } from "../dmarc/window";
import { getDomainDetail } from "../domains/domain-detail";
import { domainStore } from "../domains/domain-store";
import { getDomainInTeam } from "../domains/get-domain";
import { listDomains } from "../domains/list-domains";
import { getTlsAnalytics } from "../tls-reports/analytics";

/** Domains listed in one digest (their totals too); the rest are counted (docs/limits.md). */
export const DIGEST_DOMAINS = 50;
/** Alerts read per digest (open ones, and the newest of the period for new senders). */
const ALERTS_READ = 200;
/** Check history pages read to find the grade at the period's start (hourly checks: 168 a week). */
const CHECK_PAGES = 2;
const CHECKS_PER_PAGE = 100;
/** Domains read at once: each costs a few object calls. */
const PARALLEL = 5;

const asGrade = (g: string | null | undefined): Grade | null => GRADES.find((x) => x === g) ?? null;
const n = (x: number | null | undefined) => Number(x ?? 0);
const dayStr = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The grade of the newest completed check made before `startMs` (null when the domain had none). */
async function gradeAt(svc: Services, ctx: ServiceContext, domainId: number, startMs: number): Promise<Grade | null> {
  for (let page = 1; page <= CHECK_PAGES; page++) {
    const { items } = await listChecks(svc, ctx, domainId, { page, per_page: CHECKS_PER_PAGE });
    const before = items.find((c) => c.status === "completed" && Date.parse(c.created_at) < startMs);
    if (before) return asGrade(before.grade);
    if (items.length < CHECKS_PER_PAGE) return null;
  }
  return null;
}

/** DMARC messages and passes over the whole UTC days of the period (the last `days` days before today). */
async function dmarcOf(svc: Services, teamId: number, domainId: number, days: number) {
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const yesterday = dayStr(svc.clock.now().getTime() - DAY_MS);
  const w = await resolveWindow(svc, domain.id, { days, to: yesterday });
  const { daily } = await domainStore(svc, domain).dmarcAnalytics({
    from: w.from,
    to: w.to,
    startMs: w.startMs,
    endMs: w.endMs,
    domainName: domain.name,
    maxSources: 0,
  });
  const messages = daily.reduce((a, d) => a + n(d.messages), 0);
  return { messages, pass: daily.reduce((a, d) => a + n(d.pass), 0) };
}

async function inParallel<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await run(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const countBy = (alerts: AlertView[], keep: (a: AlertView) => boolean) => {
  const m = new Map<number, number>();
  for (const a of alerts) if (a.domain_id !== null && keep(a)) m.set(a.domain_id, (m.get(a.domain_id) ?? 0) + 1);
  return m;
};

export interface DigestScope {
  teamId: number;
  teamName: string;
  frequency: "weekly" | "daily";
  period: string;
  days: number;
  siteUrl: string;
}

export async function buildDigest(svc: Services, scope: DigestScope): Promise<DigestModel> {
  const ctx = systemContext(scope.teamId);
  const startMs = svc.clock.now().getTime() - scope.days * DAY_MS;
  const [listed, open, recent] = await Promise.all([
    listDomains(svc, ctx, { page: 1, per_page: DIGEST_DOMAINS }),
    listAlerts(svc, ctx, { page: 1, per_page: ALERTS_READ, open: true }),
    listAlerts(svc, ctx, { page: 1, per_page: ALERTS_READ }),
  ]);
  const openByDomain = countBy(open.items, () => true);
  const silentByDomain = countBy(open.items, (a) => a.kind === "reports_missing");
  const newSendersByDomain = countBy(recent.items, (a) => a.kind === "new_sender" && Date.parse(a.created_at ?? "") >= startMs);

  const domains: DigestDomain[] = await inParallel(listed.items, PARALLEL, async (d) => {
    const [detail, gradeBefore, dmarc, tls] = await Promise.all([
      getDomainDetail(svc, ctx, d.id),
      gradeAt(svc, ctx, d.id, startMs),
      dmarcOf(svc, scope.teamId, d.id, scope.days),
      getTlsAnalytics(svc, ctx, d.id, scope.days),
    ]);
    const tlsSessions = tls.summary.successful + tls.summary.failed;
    return {
      id: d.id,
      name: d.name,
      grade: asGrade(detail.grade),
      gradeBefore,
      score: detail.score,
      nextStep: detail.plan?.steps[0]?.title ?? null,
      dmarcMessages: dmarc.messages,
      dmarcPassRate: dmarc.messages > 0 ? dmarc.pass / dmarc.messages : null,
      newSenders: newSendersByDomain.get(d.id) ?? 0,
      silentReporters: silentByDomain.get(d.id) ?? 0,
      tlsSessions,
      tlsFailureRate: tlsSessions > 0 ? tls.summary.failed / tlsSessions : null,
      openAlerts: openByDomain.get(d.id) ?? 0,
    };
  });

  const scored = domains.filter((d) => d.score !== null);
  const grades: DigestModel["totals"]["grades"] = {};
  for (const d of domains) grades[d.grade ?? "none"] = (grades[d.grade ?? "none"] ?? 0) + 1;
  const dmarcMessages = domains.reduce((a, d) => a + d.dmarcMessages, 0);
  const dmarcPass = domains.reduce((a, d) => a + (d.dmarcPassRate ?? 0) * d.dmarcMessages, 0);
  const tlsSessions = domains.reduce((a, d) => a + d.tlsSessions, 0);
  const tlsFailed = domains.reduce((a, d) => a + (d.tlsFailureRate ?? 0) * d.tlsSessions, 0);
  return {
    team: scope.teamName,
    frequency: scope.frequency,
    period: scope.period,
    days: scope.days,
    siteUrl: scope.siteUrl,
    totals: {
      domains: listed.total,
      averageScore: scored.length > 0 ? Math.round(scored.reduce((a, d) => a + n(d.score), 0) / scored.length) : null,
      grades,
      openAlerts: open.total,
      dmarcMessages,
      dmarcPassRate: dmarcMessages > 0 ? Math.round(dmarcPass) / dmarcMessages : null,
      tlsSessions,
      tlsFailureRate: tlsSessions > 0 ? Math.round(tlsFailed) / tlsSessions : null,
    },
    domains,
    moreDomains: Math.max(0, listed.total - listed.items.length),
  };
}
