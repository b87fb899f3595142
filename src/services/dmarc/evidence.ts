// What a domain's DMARC aggregate reports say about enforcement: the pass rate, the days and messages with
// data, and the identified senders that fail; the remediation plan's DMARC ramp and the DMARC view read the
// same rule (core/dmarc/ramp.ts). Does I/O (the domain's report object, the PTR cache, DNS for new sources).
import type { DmarcEvidence } from "../../core/dmarc/ramp";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { domainStore } from "../domains/domain-store";
import { senderFixes, type SenderFailure } from "./advice";
import { identifySources, SENDER_LIMITS, type SourceIdentity } from "./senders";

/** The evidence window of the plan: the last 30 days, like the DMARC view's default. */
export const EVIDENCE_DAYS = 30;
/** A known sender is "failing" when more than this share of its messages fails DMARC. */
export const SENDER_FAIL_SHARE = 0.02;
const MAX_SOURCES = 100;

const n = (x: number | null | undefined) => Number(x ?? 0);
const dayStr = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface SourceTotals {
  ip: string;
  messages: number;
  pass: number;
  own_spf_fail?: number | null;
  dkim_aligned: number;
}

/** Identified senders failing DMARC for more than SENDER_FAIL_SHARE of their mail, most failures first. */
export function failingSendersOf(sources: readonly SourceTotals[], ids: Map<string, SourceIdentity>, domainName: string) {
  const failing = new Map<string, SenderFailure & { sources: string[] }>();
  for (const s of sources) {
    const sender = ids.get(s.ip)?.sender;
    if (!sender) continue;
    const m = n(s.messages);
    const fail = m - n(s.pass);
    const f = failing.get(sender) ?? { sender, messages: 0, fail: 0, ownSpfFail: 0, dkimUnaligned: 0, sources: [] };
    f.messages += m;
    f.fail += fail;
    f.ownSpfFail += n(s.own_spf_fail);
    f.dkimUnaligned += m - n(s.dkim_aligned);
    if (fail > 0) f.sources.push(s.ip);
    failing.set(sender, f);
  }
  return [...failing.values()]
    .filter((f) => f.fail > 0 && f.fail / f.messages > SENDER_FAIL_SHARE)
    .sort((a, b) => b.fail - a.fail)
    .map((f) => ({ sender: f.sender, messages: f.messages, fail: f.fail, sources: f.sources.slice(0, 10), fixes: senderFixes(f, domainName) }));
}

/** The last EVIDENCE_DAYS days of reports; null when the domain has none (nothing to read). */
export async function dmarcEvidence(svc: Services, domain: { id: number; name: string }, now: Date): Promise<DmarcEvidence | null> {
  const endMs = Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS;
  const startMs = endMs - EVIDENCE_DAYS * DAY_MS;
  const { daily, sources } = await domainStore(svc, domain).dmarcAnalytics({
    from: dayStr(startMs),
    to: dayStr(endMs - DAY_MS),
    startMs,
    endMs,
    domainName: domain.name,
    maxSources: MAX_SOURCES,
  });
  const messages = daily.reduce((a, d) => a + n(d.messages), 0);
  if (messages === 0) return null;
  const pass = daily.reduce((a, d) => a + n(d.pass), 0);
  const ids = await identifySources(
    svc,
    sources.slice(0, SENDER_LIMITS.ptrPerRequest).map((s) => s.ip),
  );
  return {
    passRate: pass / messages,
    daysWithData: daily.filter((d) => n(d.messages) > 0).length,
    messages,
    failingSenders: failingSendersOf(sources, ids, domain.name).map((f) => f.sender),
  };
}
