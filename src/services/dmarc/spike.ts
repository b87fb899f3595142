// DMARC failure spike: a report whose DMARC failure rate is well above the domain's 14-day baseline
// raises (or repeats) the dmarc_failure_spike alert. Reads D1 (the baseline from the daily summaries,
// docs/decisions.md D122); writes nothing itself.
import { sql } from "drizzle-orm";
import type { ParsedReport } from "../../core/reports";
import type { AlertDraft } from "../alerts/types";

import type { Services } from "../../services";

export const SPIKE_RULE = {
  baselineDays: 14,
  /** A report whose first day is older than this is history, not news: it raises no spike (D137). */
  maxAgeDays: 17,
  /** The report must carry at least this many messages for its rate to mean anything. */
  minMessages: 100,
  /** Failure rate at least this multiple of the baseline rate ... */
  ratio: 3,
  /** ... and at least this many percentage points above it. */
  minPoints: 10,
} as const;

const dayShift = (day: string, delta: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + delta * 86_400_000).toISOString().slice(0, 10);

/** DMARC fail = neither aligned DKIM nor aligned SPF passed (RFC 7489 §3.1, policy_evaluated). */
export function reportFailure(parsed: ParsedReport): { messages: number; fail: number; firstDay: string | null } {
  let messages = 0;
  let fail = 0;
  let firstDay: string | null = null;
  for (const r of parsed.rows) {
    messages += r.messages;
    if (r.dmarcDkim !== "pass" && r.dmarcSpf !== "pass") fail += r.messages;
    if (firstDay === null || r.day < firstDay) firstDay = r.day;
  }
  return { messages, fail, firstDay };
}

export async function failureSpike(svc: Services, target: { id: number; teamId: number; name: string }, parsed: ParsedReport): Promise<AlertDraft | null> {
  const now = reportFailure(parsed);
  if (now.messages < SPIKE_RULE.minMessages || now.firstDay === null) return null;
  if (now.firstDay < dayShift(svc.clock.now().toISOString().slice(0, 10), -SPIKE_RULE.maxAgeDays)) return null;
  const rate = now.fail / now.messages;
  // The days before the report's first day, from the domain's daily summaries (this report is not in them).
  const base = await svc.db.get<{ messages: number | null; fail: number | null }>(sql`
    SELECT SUM(messages) AS messages, SUM(fail) AS fail FROM dmarc_daily
    WHERE domain_id = ${target.id} AND day >= ${dayShift(now.firstDay, -SPIKE_RULE.baselineDays)} AND day < ${now.firstDay}`);
  const baseMessages = base?.messages ?? 0;
  // Without a baseline there is no "spike" to speak of: the first reports set it.
  if (baseMessages < SPIKE_RULE.minMessages) return null;
  const baseRate = (base?.fail ?? 0) / baseMessages;
  if (rate < SPIKE_RULE.ratio * baseRate || rate - baseRate < SPIKE_RULE.minPoints / 100) return null;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return {
    teamId: target.teamId,
    domain: { id: target.id, name: target.name },
    kind: "dmarc_failure_spike",
    subject: "dmarc:failures",
    severity: rate >= 0.5 ? "High" : "Medium",
    title: `DMARC failures at ${pct(rate)} for ${target.name} (baseline ${pct(baseRate)})`,
    body: `${parsed.metadata.orgName} reported ${now.fail} of ${now.messages} messages failing DMARC (neither aligned SPF nor aligned DKIM passed) from ${now.firstDay}; over the previous ${SPIKE_RULE.baselineDays} days ${pct(baseRate)} of ${baseMessages} messages failed. A new sender that is not authorised, a broken DKIM key or a spoofing campaign are the usual causes.`,
  };
}
