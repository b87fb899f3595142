// GET /domains/{domain}/dmarc: report summary, alignment, sources with identified senders, failing
// senders with fixes, enforcement advice, suggested record, daily series. Does I/O (D1, DNS).
import { sql } from "drizzle-orm";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { getDomainInTeam } from "../domains/get-domain";
import { enforcementAdvice, senderFixes, suggestedRecord, type EnforcementAdvice, type SenderFailure } from "./advice";
import { identifySources, SENDER_LIMITS } from "./senders";
import type { ServiceContext } from "../context";
import { refusalsSince } from "./quota";
import { resolveWindow, type WindowQuery } from "./window";

/** Sources listed per response (by messages); reverse DNS only for the first SENDER_LIMITS.ptrPerRequest. */
export const MAX_SOURCES = 100;
/** A known sender is "failing" when more than this share of its messages fails DMARC. */
export const SENDER_FAIL_SHARE = 0.02;

interface SourceRow {
  ip: string;
  messages: number;
  pass: number;
  spf_pass: number;
  dkim_pass: number;
  spf_aligned: number;
  dkim_aligned: number;
  own_spf_fail: number;
}

const dayStr = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const n = (x: number | null | undefined) => Number(x ?? 0);

/** `window`: a number of days back from today, or days/from/to as docs/decisions.md D71 combines them. */
export async function getDmarcAnalytics(svc: Services, ctx: ServiceContext, domainId: number, window: number | WindowQuery) {
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const w = await resolveWindow(svc, domain.id, typeof window === "number" ? { days: window } : window);
  const { from, to, days } = w;
  const lastDayMs = w.endMs - DAY_MS;
  // Rows of complete reports only (a "processing" report is half-written), by the (domain_id, day) index.
  const rows = sql`dmarc_rows r JOIN dmarc_reports p ON p.id = r.report_id AND p.status = 'complete'
    WHERE r.domain_id = ${domain.id} AND r.day >= ${from} AND r.day <= ${to}`;
  const passExpr = sql`CASE WHEN r.dkim_aligned = 1 OR r.spf_aligned = 1 THEN r.messages ELSE 0 END`;
  const own = sql`(lower(r.spf_domain) = ${domain.name} OR lower(r.spf_domain) LIKE ${`%.${domain.name}`})`;

  const [reports, daily, sources, total, latest] = await Promise.all([
    svc.db.get<{ reports: number; reporters: number; first: number | null; last: number | null }>(sql`
      SELECT COUNT(*) AS reports, COUNT(DISTINCT org_name) AS reporters, MIN(date_begin) AS first, MAX(date_end) AS last
      FROM dmarc_reports WHERE domain_id = ${domain.id} AND status = 'complete' AND date_end >= ${w.startMs} AND date_begin < ${w.endMs}`),
    svc.db.all<{ day: string; messages: number; pass: number; spf_aligned: number; dkim_aligned: number }>(sql`
      SELECT r.day AS day, SUM(r.messages) AS messages, SUM(${passExpr}) AS pass,
        SUM(r.spf_aligned * r.messages) AS spf_aligned, SUM(r.dkim_aligned * r.messages) AS dkim_aligned
      FROM ${rows} GROUP BY r.day ORDER BY r.day`),
    svc.db.all<SourceRow>(sql`
      SELECT r.source_ip AS ip, SUM(r.messages) AS messages, SUM(${passExpr}) AS pass,
        SUM(CASE WHEN r.spf_result = 'pass' THEN r.messages ELSE 0 END) AS spf_pass,
        SUM(CASE WHEN r.dkim_result = 'pass' THEN r.messages ELSE 0 END) AS dkim_pass,
        SUM(r.spf_aligned * r.messages) AS spf_aligned, SUM(r.dkim_aligned * r.messages) AS dkim_aligned,
        SUM(CASE WHEN coalesce(r.spf_result, '') <> 'pass' AND ${own} THEN r.messages ELSE 0 END) AS own_spf_fail
      FROM ${rows} GROUP BY r.source_ip ORDER BY messages DESC, ip LIMIT ${MAX_SOURCES}`),
    svc.db.get<{ sources: number }>(sql`SELECT COUNT(DISTINCT r.source_ip) AS sources FROM ${rows}`),
    svc.db.get<{ policy: string | null }>(sql`
      SELECT policy FROM dmarc_reports WHERE domain_id = ${domain.id} AND status = 'complete' ORDER BY date_end DESC LIMIT 1`),
  ]);

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

  const failing = new Map<string, SenderFailure & { sources: string[] }>();
  const sourceViews = sources.map((s) => {
    const id = ids.get(s.ip) ?? null;
    const m = n(s.messages);
    const fail = m - n(s.pass);
    if (id?.sender) {
      const f = failing.get(id.sender) ?? { sender: id.sender, messages: 0, fail: 0, ownSpfFail: 0, dkimUnaligned: 0, sources: [] };
      f.messages += m;
      f.fail += fail;
      f.ownSpfFail += n(s.own_spf_fail);
      f.dkimUnaligned += m - n(s.dkim_aligned);
      if (fail > 0) f.sources.push(s.ip);
      failing.set(id.sender, f);
    }
    return {
      ip: s.ip,
      ptr: id?.ptr ?? null,
      sender: id?.sender ?? null,
      identified_by: id?.via ?? null,
      messages: m,
      dmarc: { pass: n(s.pass), fail },
      spf: { pass: n(s.spf_pass), fail: m - n(s.spf_pass), aligned: n(s.spf_aligned) },
      dkim: { pass: n(s.dkim_pass), fail: m - n(s.dkim_pass), aligned: n(s.dkim_aligned) },
    };
  });
  const failingSenders = [...failing.values()]
    .filter((f) => f.fail > 0 && f.fail / f.messages > SENDER_FAIL_SHARE)
    .sort((a, b) => b.fail - a.fail)
    .map((f) => ({ sender: f.sender, messages: f.messages, fail: f.fail, sources: f.sources.slice(0, 10), fixes: senderFixes(f, domain.name) }));

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
    suggested_record: suggestedRecord(enforcement.recommended_policy, reportAddress),
    daily: series,
  };
}

export type DmarcAnalytics = Awaited<ReturnType<typeof getDmarcAnalytics>>;
