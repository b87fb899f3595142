// Enforcement advice, the fixes for failing known senders and the suggested DMARC record, from
// aggregated report data. Pure, no I/O.
import { senderByName } from "./sender-table";

/**
 * When tightening the policy one step (none → quarantine → reject) is safe: the DMARC pass rate
 * (aligned SPF or aligned DKIM, RFC 9989 §4.4) is at least 98% over at least 14 days that carry
 * report data with at least 500 messages, and no identified sender of the domain is failing.
 */
export const ENFORCEMENT_RULE = { minPassRate: 0.98, minDays: 14, minMessages: 500 } as const;
export const ENFORCEMENT_RULE_TEXT =
  `Move one step (none → quarantine → reject) when at least ${ENFORCEMENT_RULE.minPassRate * 100}% of messages pass DMARC ` +
  `(aligned SPF or aligned DKIM) over at least ${ENFORCEMENT_RULE.minDays} days of report data with at least ` +
  `${ENFORCEMENT_RULE.minMessages} messages, and no identified sender is failing.`;

export type Policy = "none" | "quarantine" | "reject";

export interface EnforcementAdvice {
  current_policy: string | null;
  recommended_policy: Policy;
  safe_to_enforce: boolean;
  reason: string;
  rule: string;
}

export function enforcementAdvice(o: {
  current: string | null;
  passRate: number | null;
  daysWithData: number;
  messages: number;
  failingSenders: string[];
}): EnforcementAdvice {
  const cur: Policy = o.current === "reject" || o.current === "quarantine" ? o.current : "none";
  const next: Policy = cur === "none" ? "quarantine" : "reject";
  const base = { current_policy: o.current, rule: ENFORCEMENT_RULE_TEXT };
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  if (o.passRate === null || o.messages === 0) {
    return {
      ...base,
      recommended_policy: cur,
      safe_to_enforce: false,
      reason: "No report data in this window: publish rua with the report address and wait for reports.",
    };
  }
  if (o.daysWithData < ENFORCEMENT_RULE.minDays || o.messages < ENFORCEMENT_RULE.minMessages) {
    return {
      ...base,
      recommended_policy: cur,
      safe_to_enforce: false,
      reason: `Not enough data yet: ${o.daysWithData} day(s) and ${o.messages} message(s); the rule needs ${ENFORCEMENT_RULE.minDays} days and ${ENFORCEMENT_RULE.minMessages} messages.`,
    };
  }
  if (o.failingSenders.length > 0) {
    return {
      ...base,
      recommended_policy: cur,
      safe_to_enforce: false,
      reason: `Fix the failing senders first (${o.failingSenders.join(", ")}): enforcing now would quarantine or reject their legitimate mail.`,
    };
  }
  if (o.passRate < ENFORCEMENT_RULE.minPassRate) {
    return {
      ...base,
      recommended_policy: cur,
      safe_to_enforce: false,
      reason: `Only ${pct(o.passRate)} of messages pass DMARC; find the failing sources below and authorise or stop them before enforcing.`,
    };
  }
  if (cur === "reject") {
    return { ...base, recommended_policy: "reject", safe_to_enforce: true, reason: `p=reject is in place and ${pct(o.passRate)} of messages pass DMARC.` };
  }
  return {
    ...base,
    recommended_policy: next,
    safe_to_enforce: true,
    reason: `${pct(o.passRate)} of messages pass DMARC over ${o.daysWithData} days: moving to p=${next} is safe.`,
  };
}

/**
 * RFC 9989: v and p first; no pct (removed); rua to the domain's report address (§4.7 mailto URI). Failure
 * reports only when the team asks (docs/decisions.md D108): ruf to the same address, and fo=1 so that a
 * message failing either mechanism is reported (RFC 9989 §4.7).
 */
export function suggestedRecord(policy: Policy, reportAddress: string, o: { ruf?: boolean } = {}): string {
  const base = `v=DMARC1; p=${policy}; rua=mailto:${reportAddress}`;
  return o.ruf ? `${base}; ruf=mailto:${reportAddress}; fo=1` : base;
}

export interface SenderFailure {
  sender: string;
  messages: number;
  fail: number;
  /** Messages whose raw SPF result failed for an envelope domain that is the customer's own. */
  ownSpfFail: number;
  dkimUnaligned: number;
}

/** The fixes the provider documents: DKIM alignment first (it survives forwarding), then SPF. */
export function senderFixes(f: SenderFailure, domain: string): string[] {
  const s = senderByName(f.sender);
  if (s === null) return [];
  const fixes: string[] = [];
  if (f.dkimUnaligned > 0) fixes.push(`DKIM: ${s.dkimFix}.`);
  if (f.ownSpfFail > 0 && s.spfInclude) fixes.push(`SPF: add include:${s.spfInclude} to the SPF record of ${domain}.`);
  return fixes;
}
