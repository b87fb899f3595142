// Enforcement advice, the fixes for failing known senders and the suggested DMARC record, from
// aggregated report data. Pure, no I/O.
import { senderByName } from "./sender-table";

export { ENFORCEMENT_RULE, ENFORCEMENT_RULE_TEXT, enforcementAdvice, type EnforcementAdvice } from "../../core/dmarc/ramp";
export type Policy = "none" | "quarantine" | "reject";

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
