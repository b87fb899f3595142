// DMARC for one message as a receiver evaluates it (RFC 9989): policy discovery by the DNS Tree Walk,
// SPF and DKIM identifier alignment, the result and the disposition. I/O only through the Resolver.
import type { SignatureReport } from "../dkim/verify-signature";
import { aligned, type Alignment, type OrgDomainOf } from "../dmarc/align";
import { discoverPolicy } from "../dmarc/discover";
import type { DmarcPolicy } from "../dmarc/parse";
import type { Resolver } from "../dns/types";

export type DmarcResult = "pass" | "fail" | "none" | "temperror" | "permerror";

export interface DmarcPolicyView {
  record: string;
  /** Where the record was found (the From domain, its Organizational Domain or the PSD). */
  domain: string;
  inherited: boolean;
  p: DmarcPolicy | null;
  sp: DmarcPolicy | null;
  np: DmarcPolicy | null;
  adkim: "r" | "s";
  aspf: "r" | "s";
  /** RFC 7489 pct (removed by RFC 9989, still honoured by older receivers). */
  pct: number | null;
  /** RFC 9989 t=y: testing mode, the policy is applied one step lower. */
  t: boolean;
}

export interface SpfAlignmentView {
  /** The SPF-authenticated identifier: the MAIL FROM domain, or HELO for a null reverse-path (RFC 7208 §2.4). */
  domain: string | null;
  spf_result: string;
  alignment: Alignment | "not_applicable";
}

export interface DkimAlignmentView {
  domain: string | null;
  selector: string | null;
  dkim_result: string;
  alignment: Alignment | "not_applicable";
}

export interface DmarcEvaluation {
  result: DmarcResult;
  from_domain: string | null;
  organizational_domain: string | null;
  policy: DmarcPolicyView | null;
  /** Which tag gave the policy applied: p (the domain's own record), sp (a subdomain) or np (a non-existent subdomain). */
  policy_tag: "p" | "sp" | "np" | null;
  spf: SpfAlignmentView;
  dkim: DkimAlignmentView[];
  disposition: DmarcPolicy;
  /** How the disposition follows from the record, in words. */
  disposition_rule: string;
  reason: string;
}

export interface DmarcInput {
  fromDomain: string | null;
  fromProblem: string | null;
  spfDomain: string | null;
  spfResult: string;
  signatures: Array<Pick<SignatureReport, "domain" | "selector" | "result" | "testing">>;
  resolver: Resolver;
  orgDomainOf: OrgDomainOf;
}

const LOWER: Record<DmarcPolicy, DmarcPolicy> = { reject: "quarantine", quarantine: "none", none: "none" };

/** RFC 9989 "Non-existent Domains": NXDOMAIN for A, AAAA and MX. null when a lookup failed. */
async function domainExists(domain: string, resolver: Resolver): Promise<boolean | null> {
  const answers = await Promise.all((["A", "AAAA", "MX"] as const).map((t) => resolver.query(domain, t)));
  if (answers.some((a) => a.kind === "temperror")) return null;
  return answers.some((a) => a.kind !== "nxdomain");
}

export async function evaluateDmarc(input: DmarcInput): Promise<DmarcEvaluation> {
  const { fromDomain, resolver } = input;
  const spfView: SpfAlignmentView = { domain: input.spfDomain, spf_result: input.spfResult, alignment: "not_applicable" };
  const dkimViews: DkimAlignmentView[] = input.signatures.map((s) => ({
    domain: s.domain,
    selector: s.selector,
    dkim_result: s.result,
    alignment: "not_applicable",
  }));
  const base = {
    from_domain: fromDomain,
    organizational_domain: null,
    policy: null,
    policy_tag: null,
    spf: spfView,
    dkim: dkimViews,
    disposition: "none" as const,
  };
  if (fromDomain === null) {
    // RFC 9989 §4.7 / RFC 7489 §6.6.1: without exactly one author domain DMARC cannot be applied.
    return {
      ...base,
      result: "permerror",
      disposition_rule: "No single From domain: receivers cannot apply DMARC and often reject such mail outright.",
      reason: input.fromProblem ?? "no From domain",
    };
  }
  const [disc, org] = await Promise.all([discoverPolicy(fromDomain, resolver), input.orgDomainOf(fromDomain)]);
  const withOrg = { ...base, organizational_domain: org };
  if (disc.status === "temperror") {
    return {
      ...withOrg,
      result: "temperror",
      disposition_rule: "The policy lookup failed transiently; receivers retry (4xx) or deliver without applying a policy.",
      reason: `DNS lookup of ${disc.temperror?.name} failed: ${disc.temperror?.reason}`,
    };
  }
  if (disc.status === "none" || disc.parsed === null) {
    return {
      ...withOrg,
      result: "none",
      disposition_rule: "No DMARC record applies to the From domain, so receivers apply no DMARC policy.",
      reason: `no DMARC record for ${fromDomain} (RFC 9989 §4.10.1)`,
    };
  }
  const r = disc.parsed;
  const policy: DmarcPolicyView = {
    record: r.text,
    domain: disc.policyDomain ?? fromDomain,
    inherited: disc.inherited,
    p: r.p,
    sp: r.sp,
    np: r.np,
    adkim: r.adkim,
    aspf: r.aspf,
    pct: r.pct,
    t: r.t,
  };

  // Alignment (RFC 9989 "Identifier Alignment"): relaxed means the same Organizational Domain.
  const orgOf: OrgDomainOf = input.orgDomainOf;
  if (input.spfDomain !== null && input.spfResult === "pass") spfView.alignment = await aligned(input.spfDomain, fromDomain, r.aspf, orgOf);
  await Promise.all(
    input.signatures.map(async (s, i) => {
      const view = dkimViews[i];
      // RFC 6376 §3.6.1: a testing-mode key (t=y) is treated as unsigned.
      if (!view || s.domain === null || s.result !== "pass" || s.testing) return;
      view.alignment = await aligned(s.domain, fromDomain, r.adkim, orgOf);
    }),
  );
  const spfPass = spfView.alignment === "aligned";
  const dkimPass = dkimViews.some((d) => d.alignment === "aligned");

  // Which policy applies: p at the domain's own record, sp (or np for a non-existent subdomain) when inherited.
  let tag: "p" | "sp" | "np" = disc.inherited ? "sp" : "p";
  let existsNote = "";
  if (disc.inherited && r.effective.np !== r.effective.sp) {
    const exists = await domainExists(fromDomain, resolver);
    if (exists === false) tag = "np";
    else if (exists === null) existsNote = " (whether the domain exists could not be checked, so sp was used)";
  }
  const withPolicy = { ...withOrg, policy, policy_tag: r.policyApplies ? tag : null };
  if (!r.policyApplies) {
    return {
      ...withPolicy,
      result: spfPass || dkimPass ? "pass" : "fail",
      disposition_rule: "The record has no valid policy and no valid rua, so receivers apply no DMARC policy (RFC 9989 §4.10.1).",
      reason: "invalid policy record",
    };
  }
  if (spfPass || dkimPass) {
    const via = [spfPass ? "SPF" : null, dkimPass ? "DKIM" : null].filter(Boolean).join(" and ");
    return { ...withPolicy, result: "pass", disposition_rule: "DMARC passed: no policy is applied.", reason: `aligned ${via} pass` };
  }
  const temp =
    input.spfResult === "temperror" ||
    spfView.alignment === "temperror" ||
    input.signatures.some((s) => s.result === "temperror") ||
    dkimViews.some((d) => d.alignment === "temperror");
  if (temp) {
    return {
      ...withPolicy,
      result: "temperror",
      disposition_rule: "A lookup failed transiently, so the result could still be a pass; receivers retry (4xx) rather than apply the policy.",
      reason: "no aligned pass, and an SPF, DKIM or alignment lookup failed transiently",
    };
  }
  const declared = r.effective[tag];
  const applied = r.t ? LOWER[declared] : declared;
  let rule = `${tag}=${declared} of ${policy.domain}${existsNote}`;
  if (r.t) rule += `; t=y (testing) lowers it one step to ${applied} (RFC 9989 §5.3)`;
  if (r.pct !== null && r.pct < 100 && applied !== "none") {
    rule += `; pct=${r.pct}: RFC 7489 receivers apply it to ${r.pct}% of failing mail and ${LOWER[applied]} to the rest (RFC 9989 receivers ignore pct)`;
  }
  const reasons: string[] = [];
  if (input.spfResult !== "pass") reasons.push(`SPF ${input.spfResult}`);
  else reasons.push(`SPF passed for ${input.spfDomain}, which does not align with ${fromDomain} (aspf=${r.aspf})`);
  const passingDkim = dkimViews.filter((d) => d.dkim_result === "pass");
  if (passingDkim.length === 0) reasons.push(dkimViews.length === 0 ? "no DKIM signature" : "no DKIM signature passed");
  else reasons.push(`DKIM passed only for ${passingDkim.map((d) => d.domain).join(", ")}, not aligned with ${fromDomain} (adkim=${r.adkim})`);
  return { ...withPolicy, result: "fail", disposition: applied, disposition_rule: rule, reason: reasons.join("; ") };
}
