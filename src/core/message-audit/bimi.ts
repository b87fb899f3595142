// BIMI eligibility of the From domain: a valid BIMI record and DMARC at enforcement (BIMI draft §7.1),
// and a message that passes DMARC. I/O only through the Resolver; the logo itself is not fetched.
import { checkBimi } from "../bimi/check";
import type { OrgDomainOf } from "../dmarc/align";
import type { Resolver } from "../dns/types";
import type { DmarcEvaluation } from "./dmarc";

export interface BimiEligibility {
  eligible: boolean | null;
  record: string | null;
  host: string | null;
  status: "present" | "missing" | "invalid" | "temperror" | "not_checked";
  dmarc_enforcing: boolean | null;
  /** What blocks eligibility. */
  problems: string[];
  /** Advice that does not block BIMI itself (e.g. Gmail's need for a VMC or CMC). */
  notes: string[];
}

/** p (or sp for a subdomain) is quarantine or reject, sp is not none, pct is 100 or absent, not t=y. */
export function dmarcEnforcing(d: DmarcEvaluation): boolean | null {
  const p = d.policy;
  if (d.result === "temperror") return null;
  if (p === null) return false;
  const applied = (p.inherited ? (p.sp ?? p.p) : p.p) ?? "none";
  return (applied === "quarantine" || applied === "reject") && p.sp !== "none" && (p.pct === null || p.pct === 100) && !p.t;
}

export async function checkBimiEligibility(dmarc: DmarcEvaluation, resolver: Resolver, orgDomainOf: OrgDomainOf): Promise<BimiEligibility> {
  const domain = dmarc.from_domain;
  if (domain === null)
    return { eligible: false, record: null, host: null, status: "not_checked", dmarc_enforcing: null, problems: ["no single From domain"], notes: [] };
  const enforcing = dmarcEnforcing(dmarc);
  const p = dmarc.policy;
  const r = await checkBimi(domain, resolver, { dmarc: p ? { p: p.inherited ? (p.sp ?? p.p) : p.p, sp: p.sp, pct: p.pct } : null, orgDomain: orgDomainOf });
  // High and Critical findings make the record or the policy unusable; the rest is advice.
  const blocking = (f: { severity: string; rule: string }) =>
    r.status === "invalid" || f.severity === "High" || f.severity === "Critical" || f.rule === "bimi.dmarc-pct-below-100";
  const problems = r.findings.filter(blocking).map((f) => f.description);
  const notes = r.findings.filter((f) => !blocking(f) && f.rule !== "bimi.missing").map((f) => f.description);
  if (r.status === "missing") problems.push(`no BIMI record at ${r.host}`);
  if (r.declined) problems.push("the BIMI record declines BIMI (empty l= and a=)");
  if (enforcing === false && r.status === "present" && !r.declined && !r.findings.some((f) => f.rule.startsWith("bimi.") && f.rule.includes("dmarc"))) {
    problems.push("DMARC is not at enforcement: BIMI needs p=quarantine (pct=100) or p=reject, and sp not none");
  }
  if (p?.t) problems.push("DMARC t=y (testing) is not enforcement");
  if (dmarc.result !== "pass" && dmarc.result !== "temperror") problems.push(`this message does not pass DMARC (${dmarc.result}), so no logo is shown for it`);
  const unknown = r.status === "temperror" || enforcing === null || dmarc.result === "temperror";
  const eligible = unknown && problems.length === 0 ? null : problems.length === 0 && r.status === "present" && enforcing === true && dmarc.result === "pass";
  return { eligible, record: r.record, host: r.host, status: r.status, dmarc_enforcing: enforcing, problems: [...new Set(problems)], notes };
}
