// GET /domains/{domain}/dmarc: report summary, alignment, sources with identified senders, failing
// senders with fixes, enforcement advice, suggested record, daily series. Does I/O (the domain's report
// object, D1, DNS).
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { getDomainInTeam } from "../domains/get-domain";
import { enforcementAdvice, suggestedRecord, type EnforcementAdvice } from "./advice";
import { failingSendersOf } from "./evidence";
import { setTag } from "../../core/part/helpers";
import { latestPosture } from "../domains/domain-detail";
import { identifySources, SENDER_LIMITS } from "./senders";
import type { ServiceContext } from "../context";
import { refusalsSince } from "./quota";
import { domainStore } from "../domains/domain-store";
import { resolveWindow, type WindowQuery } from "./window";

/** Sources listed per response (by messages); reverse DNS only for the first SENDER_LIMITS.ptrPerRequest. */
export const MAX_SOURCES = 100;

const dayStr = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const n = (x: number | null | undefined) => Number(x ?? 0);

/** `window`: a number of days back from today, or days/from/to as docs/decisions.md D71 combines them. */
/** `ruf`: the suggested record also asks for failure reports (docs/decisions.md D108). */
export async function getDmarcAnalytics(svc: Services, ctx: ServiceContext, domainId: number, window: number | (WindowQuery & { ruf?: boolean })) {
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const w = await resolveWindow(svc, domain.id, typeof window === "number" ? { days: window } : window);
  const { from, to, days } = w;
  const lastDayMs = w.endMs - DAY_MS;
  const { reports, daily, sources, total, latest } = await domainStore(svc, domain).dmarcAnalytics({
    from,
    to,
    startMs: w.startMs,
    endMs: w.endMs,
    domainName: domain.name,
    maxSources: MAX_SOURCES,
  });

  const ids = await identifySources(
    svc,
    sources.slice(0, SENDER_LIMITS.ptrPerRequest).map((s) => s.ip),
  );
  const byDay = new Map(daily.map((d) => [d.day, d]));
  const series = Array.from({ length: days }, (_, i) => {
    const day = dayStr(lastDayMs - (days - 1 - i) * DAY_MS);
    const d = byDay.get(day);
    return { day, messages: n(d?.messages), pass: n(d?.pass), fail: n(d?.messages) - n(d?.pass) };
  });
  const messages = series.reduce((a, d) => a + d.messages, 0);
  const pass = series.reduce((a, d) => a + d.pass, 0);
  const spfAligned = daily.reduce((a, d) => a + n(d.spf_aligned), 0);
  const dkimAligned = daily.reduce((a, d) => a + n(d.dkim_aligned), 0);

  const sourceViews = sources.map((s) => {
    const id = ids.get(s.ip) ?? null;
    const m = n(s.messages);
    return {
      ip: s.ip,
      ptr: id?.ptr ?? null,
      sender: id?.sender ?? null,
      identified_by: id?.via ?? null,
      messages: m,
      dmarc: { pass: n(s.pass), fail: m - n(s.pass) },
      spf: { pass: n(s.spf_pass), fail: m - n(s.spf_pass), aligned: n(s.spf_aligned) },
      dkim: { pass: n(s.dkim_pass), fail: m - n(s.dkim_pass), aligned: n(s.dkim_aligned) },
    };
  });
  const failingSenders = failingSendersOf(sources, ids, domain.name);

  const policy = latest?.policy ? (JSON.parse(latest.policy) as { p?: string | null }) : null;
  const reportAddress = `${domain.reportToken}@${svc.config.reportDomain}`;
  const enforcement: EnforcementAdvice = enforcementAdvice({
    current: policy?.p ?? domain.dmarcPolicy ?? null,
    passRate: messages > 0 ? pass / messages : null,
    daysWithData: daily.filter((d) => n(d.messages) > 0).length,
    messages,
    failingSenders: failingSenders.map((f) => f.sender),
  });
  return {
    domain: { id: domain.id, name: domain.name },
    window: { days, from, to },
    report_address: reportAddress,
    summary: {
      reports: n(reports?.reports),
      reporters: n(reports?.reporters),
      messages,
      first_report_at: reports?.first ? new Date(reports.first).toISOString() : null,
      last_report_at: reports?.last ? new Date(reports.last).toISOString() : null,
      refused: await refusalsSince(svc, domain.id, new Date(w.startMs), new Date(lastDayMs)),
    },
    alignment: {
      rate: messages > 0 ? Math.round((pass / messages) * 10_000) / 10_000 : null,
      pass,
      fail: messages - pass,
      spf_aligned: spfAligned,
      dkim_aligned: dkimAligned,
    },
    sources: sourceViews,
    sources_total: n(total?.sources),
    failing_senders: failingSenders,
    enforcement,
    suggested_record: await planRecord(svc, domain, reportAddress, enforcement, typeof window === "object" && window.ruf === true),
    daily: series,
  };
}

export type DmarcAnalytics = Awaited<ReturnType<typeof getDmarcAnalytics>>;

/** The DMARC record of the domain's remediation plan, so this view and every other face give the same one
 *  (docs/scoring.md "Remediation plan"); before the first check, the ramp's first record. */
async function planRecord(
  svc: Services,
  domain: { id: number; lastCheckId: string | null },
  reportAddress: string,
  enforcement: EnforcementAdvice,
  ruf: boolean,
): Promise<string> {
  const planned = (await latestPosture(svc, domain))?.plan?.steps.find((s) => s.category === "dmarc")?.records[0]?.value;
  if (!planned) return suggestedRecord(enforcement.recommended_policy, reportAddress, { ruf });
  return ruf ? setTag(setTag(planned, "ruf", `mailto:${reportAddress}`), "fo", "1") : planned;
}
