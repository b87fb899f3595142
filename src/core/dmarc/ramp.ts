// The one DMARC path to enforcement (RFC 9989): the record of each stage from the published one to p=reject,
// with the service's report address kept in rua beside the owner's, and when each stage may be taken (the
// report evidence rule). Every face's DMARC advice comes from here (docs/scoring.md "Remediation plan"). No I/O.
import type { DmarcPolicy, DmarcRecord } from "./parse";

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

/** What the domain's aggregate reports say (the last 30 days); null when none were read. */
export interface DmarcEvidence {
  passRate: number | null;
  daysWithData: number;
  messages: number;
  /** Identified senders (by name) failing DMARC for more than 2% of their mail. */
  failingSenders: string[];
}

export interface EnforcementAdvice {
  current_policy: string | null;
  recommended_policy: DmarcPolicy;
  safe_to_enforce: boolean;
  reason: string;
  rule: string;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function enforcementAdvice(o: { current: string | null } & DmarcEvidence): EnforcementAdvice {
  const cur: DmarcPolicy = o.current === "reject" || o.current === "quarantine" ? o.current : "none";
  const next: DmarcPolicy = cur === "none" ? "quarantine" : "reject";
  const base = { current_policy: o.current, rule: ENFORCEMENT_RULE_TEXT };
  const hold = (reason: string): EnforcementAdvice => ({ ...base, recommended_policy: cur, safe_to_enforce: false, reason });
  if (o.passRate === null || o.messages === 0) return hold("No report data in this window: publish rua with the report address and wait for reports.");
  if (o.daysWithData < ENFORCEMENT_RULE.minDays || o.messages < ENFORCEMENT_RULE.minMessages)
    return hold(
      `Not enough data yet: ${o.daysWithData} day(s) and ${o.messages} message(s); the rule needs ${ENFORCEMENT_RULE.minDays} days and ${ENFORCEMENT_RULE.minMessages} messages.`,
    );
  if (o.failingSenders.length > 0)
    return hold(`Fix the failing senders first (${o.failingSenders.join(", ")}): enforcing now would quarantine or reject their legitimate mail.`);
  if (o.passRate < ENFORCEMENT_RULE.minPassRate)
    return hold(`Only ${pct(o.passRate)} of messages pass DMARC; find the failing sources and authorise or stop them before enforcing.`);
  if (cur === "reject")
    return { ...base, recommended_policy: "reject", safe_to_enforce: true, reason: `p=reject is in place and ${pct(o.passRate)} of messages pass DMARC.` };
  return {
    ...base,
    recommended_policy: next,
    safe_to_enforce: true,
    reason: `${pct(o.passRate)} of messages pass DMARC over ${o.daysWithData} days: moving to p=${next} is safe.`,
  };
}

export type RampGate = "now" | "after_reports";

export interface RampStage {
  policy: DmarcPolicy;
  record: string;
  gate: RampGate;
  /** Why this stage, and what must be true before it is taken. */
  why: string;
}

export interface RampInput {
  /** The domain's own published record, parsed (null: none, or not a DMARC record). */
  parsed: DmarcRecord | null;
  /** RFC 7505 null MX: the domain sends and receives no mail. */
  nullMx: boolean;
  /** The service's aggregate address for the domain ("mailto:..."), kept first in rua. */
  reportRua: string | null;
  evidence: DmarcEvidence | null;
  /** Ask for failure reports too (docs/decisions.md D108). */
  ruf?: boolean;
}

/** A record's tags as a comparable set: names lower-cased, spaces and order ignored (RFC 9989 §5.4). */
const tagSet = (text: string) =>
  text
    .split(";")
    .map((t) =>
      t
        .trim()
        .replace(/\s*=\s*/, "=")
        .replace(/^[^=]+/, (n) => n.toLowerCase()),
    )
    .filter((t) => t !== "")
    .sort()
    .join(";");

const RANK: Record<DmarcPolicy, number> = { none: 0, quarantine: 1, reject: 2 };
const stripSize = (uri: string) => uri.replace(/!\d+[kmgt]?$/i, "");

/** The record of one stage: canonical tag order, v and p first; RFC 9989 has no pct, rf or ri (they are
 *  dropped; a pct below 100 meant testing, which is t=y); the owner's valid report URIs kept after ours
 *  (RFC 9989 §5.3 allows several; some reporters send to only the first two, so ours comes first). */
export function rampRecord(input: RampInput, policy: DmarcPolicy, testing: boolean): string {
  const r = input.parsed;
  const tags: string[] = ["v=DMARC1", `p=${policy}`];
  if (input.nullMx) tags.push("sp=reject");
  else if (r?.sp && r.sp !== "none" && RANK[r.sp] >= RANK[policy]) tags.push(`sp=${r.sp}`);
  else if (r?.sp === "none" && policy === "none") tags.push("sp=none");
  if (r?.np && !input.nullMx && RANK[r.np] >= RANK[policy]) tags.push(`np=${r.np}`);
  if (r?.adkim === "s" && r.tags.some((t) => t.name === "adkim")) tags.push("adkim=s");
  if (r?.aspf === "s" && r.tags.some((t) => t.name === "aspf")) tags.push("aspf=s");
  if (testing && policy !== "none") tags.push("t=y");
  const rua = [...(input.reportRua ? [input.reportRua] : []), ...(r?.rua ?? []).filter((u) => u.valid).map((u) => stripSize(u.uri))];
  const uniqueRua = [...new Map(rua.map((u) => [u.toLowerCase(), u])).values()];
  if (uniqueRua.length > 0) tags.push(`rua=${uniqueRua.join(",")}`);
  const ruf = [...(input.ruf && input.reportRua ? [input.reportRua] : []), ...(r?.ruf ?? []).filter((u) => u.valid).map((u) => stripSize(u.uri))];
  const uniqueRuf = [...new Map(ruf.map((u) => [u.toLowerCase(), u])).values()];
  if (uniqueRuf.length > 0) {
    tags.push(`ruf=${uniqueRuf.join(",")}`);
    const fo = input.ruf ? ["1"] : (r?.fo ?? []).filter((x) => !(x === "0" && r?.fo.includes("1")));
    if (fo.length > 0 && fo.join(":") !== "0") tags.push(`fo=${fo.join(":")}`);
  }
  if (r?.psd && r.psd !== "u" && r.tags.some((t) => t.name === "psd")) tags.push(`psd=${r.psd}`);
  return tags.join("; ");
}

/**
 * The stages from the published record to p=reject. The first stage repairs the record at its current policy
 * (and adds the report address) when anything needs repair; each later stage tightens one step and waits for
 * the evidence rule unless the reports already satisfy it.
 */
export function dmarcRamp(input: RampInput): RampStage[] {
  const r = input.parsed;
  if (input.nullMx) {
    const record = rampRecord(input, "reject", false);
    return [{ policy: "reject", record, gate: "now", why: "The domain receives no mail (null MX): reject all mail claiming to come from it." }];
  }
  const current: DmarcPolicy = r && r.invalidPolicyTags.length === 0 && r.p ? r.p : "none";
  // A pct below 100 or t=y means the owner is testing: RFC 9989 expresses that with t=y only.
  const testing = r !== null && ((r.pct !== null && r.pct < 100) || r.t);
  const stages: RampStage[] = [];
  const repaired = rampRecord(input, current, testing);
  if (r === null || tagSet(repaired) !== tagSet(r.text)) {
    stages.push({
      policy: current,
      record: repaired,
      gate: "now",
      why:
        current === "none"
          ? `Publish p=none with the report address and collect reports: the next step needs ${ENFORCEMENT_RULE.minDays} days of them.`
          : "Repair the record at its current policy, with the report address in rua.",
    });
  }
  const advice = enforcementAdvice({ current, ...(input.evidence ?? { passRate: null, daysWithData: 0, messages: 0, failingSenders: [] }) });
  let policy = current;
  let evidenceUsed = false;
  while (policy !== "reject") {
    const next: DmarcPolicy = policy === "none" ? "quarantine" : "reject";
    // The reports satisfy the rule for the first step only: the next one needs reports gathered under the new policy.
    const ready = !evidenceUsed && advice.safe_to_enforce;
    evidenceUsed = true;
    stages.push({
      policy: next,
      record: rampRecord(input, next, false),
      gate: ready ? "now" : "after_reports",
      why: ready
        ? advice.reason
        : `${next === "quarantine" ? "Quarantine" : "Reject"} mail that fails DMARC once reports allow it. ${advice.safe_to_enforce ? ENFORCEMENT_RULE_TEXT : advice.reason}`,
    });
    policy = next;
  }
  return stages;
}
