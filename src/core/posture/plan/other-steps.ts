// The remediation plan's steps for DMARC (the one ramp of core/dmarc/ramp.ts), MX, TLS-RPT, MTA-STS (the
// policy file before the record that announces it) and DKIM, and the parts' own fixes for the rest.
// Each step is drafted from the analysis of the zone as the previous steps leave it. No I/O.
import type { RampStage } from "../../dmarc/ramp";
import { mtaStsPolicyTemplate } from "../../mta-sts/part";
import type { DomainAnalysis } from "../analyze-domain";
import type { PostureCategory } from "../types";
import type { Draft } from "./draft";

const txt = (host: string, value: string) => ({ host, type: "TXT" as const, value });

/** `repair`: the stage keeps the published policy and repairs the record (adds the report address, drops pct). */
export function dmarcStep(domain: string, stage: RampStage, repair: boolean, rules: Set<string>): Draft {
  const host = `_dmarc.${domain}`;
  const noRua = !/;\s*rua=/.test(stage.record);
  const repairs = repair ? [...rules].filter((r) => r.startsWith("dmarc.") && r !== "dmarc.policy-none") : [];
  return {
    id: repair ? "dmarc-record" : `dmarc-${stage.policy}`,
    category: "dmarc",
    title: repair
      ? stage.policy === "none" && !rules.has("dmarc.policy-none")
        ? "Publish DMARC p=none with the report address"
        : "Repair the DMARC record and add the report address"
      : stage.policy === "quarantine"
        ? "Move DMARC to p=quarantine"
        : "Move DMARC to p=reject",
    why: stage.why,
    gate: stage.gate,
    decision:
      stage.gate === "after_reports"
        ? "Wait until the DMARC reports show that your legitimate senders pass (the rule above)."
        : noRua
          ? "The domain receives no mail, so its reports need a mailbox at another domain: add it as rua= (that domain must authorise it, RFC 9990)."
          : null,
    records: [txt(host, stage.record)],
    edits: [txt(host, stage.record)],
    // RFC 9989 has no pct: a partial rollout becomes t=y, which the next stage (without it) closes. A record
    // without rua (a null-MX domain, no report address) leaves that finding to the owner's decision above.
    accepts: [...(/;\s*t=y/.test(stage.record) ? ["dmarc.testing-mode"] : []), ...(noRua ? ["dmarc.rua-missing"] : [])],
    targets:
      stage.policy === "none"
        ? [...repairs, "dmarc.none", "dmarc.rua-missing", "dmarc.multiple-records", "dmarc.duplicate-tag"]
        : ["dmarc.none", "dmarc.policy-none", ...repairs],
  };
}

/** MX hosts that resolve to nothing: the MX set without them, when at least one host that works remains. */
export function mxStep(a: DomainAnalysis): Draft | null {
  const mx = a.parts.mx;
  if (mx.nullMx || mx.status === "temperror") return null;
  const dead = mx.hosts.filter((h) => h.status === "unresolvable");
  const live = mx.hosts.filter((h) => h.status === "ok");
  if (dead.length === 0 || live.length === 0) return null;
  const names = dead.map((h) => h.host).join(", ");
  return {
    id: "mx-dead-hosts",
    category: "mx",
    title: `Remove the MX host${dead.length > 1 ? "s" : ""} that do${dead.length > 1 ? "" : "es"} not resolve`,
    why: `${names} ha${dead.length > 1 ? "ve" : "s"} no address, so senders waste a delivery attempt on ${dead.length > 1 ? "them" : "it"} (RFC 5321 §5.1).`,
    gate: "decision",
    decision: `Check that ${names} no longer receive${dead.length > 1 ? "" : "s"} your mail; if ${dead.length > 1 ? "they should" : "it should"}, give ${dead.length > 1 ? "them addresses" : "it an address"} instead.`,
    records: live.map((h) => ({ host: a.domain, type: "MX" as const, value: `${h.preference} ${h.host}` })),
    remove: dead.map((h) => ({ host: a.domain, type: "MX" as const, value: `${h.preference} ${h.host}` })),
    edits: live.map((h) => ({ host: a.domain, type: "MX" as const, value: `${h.preference} ${h.host}` })),
    targets: ["mx.unresolvable"],
  };
}

/** A documentation-free public address for the policy host in the projection only: the projected fetch
 *  answers the policy URL itself, so nothing is ever sent there; it only has to pass the private-address rule. */
const PROJECTED_POLICY_HOST_ADDRESS = "198.41.0.4";

const policyId = (now: Date, bump = 0): string =>
  new Date(now.getTime() + bump * 1000)
    .toISOString()
    .replace(/[-:TZ.]/g, "")
    .slice(0, 14);

/**
 * MTA-STS in testing mode, with TLS-RPT beside it when it is missing (each without the other is a finding of
 * its own, RFC 8461 §4.3 / RFC 8460 §3). The policy file comes before the record that announces it: a record
 * without a policy turns "missing" into a broken policy (RFC 8461 §3.1-3.2).
 */
export function mtaStsStep(a: DomainAnalysis, now: Date): Draft | null {
  const sts = a.parts.mta_sts;
  const mxHosts = a.parts.mx.hosts.filter((h) => h.status === "ok").map((h) => h.host);
  if (a.parts.mx.nullMx || mxHosts.length === 0 || sts.status === "temperror") return null;
  const uncovered = sts.coverage.filter((c) => !c.covered).map((c) => c.host);
  const policyBroken = sts.status !== "missing" && sts.policy.status !== "valid";
  if (sts.status === "present" && uncovered.length === 0 && !policyBroken) return null;
  const url = `https://mta-sts.${a.domain}/.well-known/mta-sts.txt`;
  const mode = sts.policy.parsed?.mode === "enforce" && uncovered.length === 0 ? "enforce" : "testing";
  const body = mtaStsPolicyTemplate(mxHosts, mode);
  // RFC 8461 §3.1: a new id for every policy change (an alphanumeric string of at most 32 characters).
  const record = `v=STSv1; id=${policyId(now)}`;
  const tlsRpt = a.fixes.filter((f) => f.host === `_smtp._tls.${a.domain}`);
  return {
    id: "mta-sts",
    category: "mta_sts",
    title:
      sts.status === "missing"
        ? `Serve an MTA-STS policy in testing mode, then announce it${tlsRpt.length > 0 ? " with TLS-RPT" : ""}`
        : "Update the MTA-STS policy and its id",
    why: `Serve this policy at ${url} (text/plain, over HTTPS with a valid certificate for mta-sts.${a.domain}) first, then publish the record${tlsRpt.length > 0 ? "s: TLS-RPT tells you which senders fail TLS while the policy is in testing" : ""} (RFC 8461 §3.1-3.2, RFC 8460 §3).`,
    gate: "decision",
    decision: `Serve the policy file at ${url} before publishing the record (a web host or the service's hosting).`,
    records: [...tlsRpt.map((f) => txt(f.host, f.value)), txt(`_mta-sts.${a.domain}`, record)],
    files: [{ url, contentType: "text/plain", body }],
    edits: [
      ...tlsRpt.map((f) => txt(f.host, f.value)),
      txt(`_mta-sts.${a.domain}`, record),
      { host: `mta-sts.${a.domain}`, type: "A", value: PROJECTED_POLICY_HOST_ADDRESS },
    ],
    targets: [
      "mta_sts.missing",
      "mta_sts.mx-not-covered",
      "mta_sts.no-policy-host",
      "mta_sts.policy-invalid",
      "mta_sts.policy-unreachable",
      "mta_sts.policy-http-status",
      "mta_sts.invalid-record",
      "mta_sts.multiple-records",
      "tls_rpt.missing",
    ],
    accepts: ["mta_sts.testing-mode"],
  };
}

/** From testing to enforce once the TLS reports show no failures (RFC 8461 §5): the same hosts, a new id. */
export function mtaStsEnforceStep(a: DomainAnalysis, now: Date): Draft | null {
  const sts = a.parts.mta_sts;
  if (sts.status !== "present" || sts.policy.parsed?.mode !== "testing") return null;
  const hosts = sts.policy.parsed.mx;
  const url = sts.policy.url;
  const record = `v=STSv1; id=${policyId(now, 1)}`;
  return {
    id: "mta-sts-enforce",
    category: "mta_sts",
    title: "Move MTA-STS from testing to enforce",
    why: "In testing mode senders report TLS failures but still deliver without TLS; enforce makes them refuse an unauthenticated connection (RFC 8461 §5).",
    gate: "after_reports",
    decision: "Wait until the SMTP TLS reports show no failures for your MX hosts (the TLS page), then replace the policy file and its id together.",
    records: [txt(`_mta-sts.${a.domain}`, record)],
    files: [{ url, contentType: "text/plain", body: mtaStsPolicyTemplate(hosts, "enforce") }],
    edits: [txt(`_mta-sts.${a.domain}`, record)],
    targets: ["mta_sts.testing-mode"],
  };
}

/** No DKIM key found at all: DNS alone cannot sign mail, so this is the signer's work, then one record. */
export function dkimSetupStep(settings: { status: string } | undefined, domain: string): Draft | null {
  if (settings?.status !== "missing") return null;
  return {
    id: "dkim-setup",
    category: "dkim",
    title: "Sign your mail with DKIM",
    why: "No DKIM key was found at the selectors the service tries, so receivers see no DKIM signature: DMARC then rests on SPF alone, which forwarding breaks (RFC 6376, RFC 9989 §4.4).",
    gate: "decision",
    decision: `Turn on DKIM signing where your mail is sent from (your provider gives you a selector and the record to publish at <selector>._domainkey.${domain}), or generate a 2048-bit key pair with the DKIM generator and install the private key in your mail server; then add the selector on the DKIM page if the service does not find it by itself.`,
    records: [],
    edits: [],
    dkim: { status: "present", findings: [] },
    targets: [],
  };
}

const WEAK_KEY_RULES = ["dkim.key.too_small", "dkim.key.weak", "dkim.key.sha1_only"];

export function dkimStep(a: DomainAnalysis, settings: { status: string; findings: { rule: string }[] } | undefined): Draft | null {
  if (!settings) return null;
  const weak = a.findings.filter((f) => f.category === "dkim" && WEAK_KEY_RULES.includes(f.rule));
  if (weak.length === 0) return null;
  const rest = (a.parts.dkim?.findings ?? []).filter((f) => !WEAK_KEY_RULES.includes(f.rule));
  return {
    id: "dkim-rotate",
    category: "dkim",
    title: "Rotate the weak DKIM key to a 2048-bit RSA key",
    why: `${weak.map((f) => f.description).join(" ")} Keys under 1024 bits must not be used and SHA-1 must not be used for signing (RFC 8301 §3.1-3.2).`,
    gate: "decision",
    decision:
      "Generate a 2048-bit key (the DKIM generator makes the key pair and the record), publish its record at a new selector, switch your mail server to sign with it, then delete the old selector's record.",
    records: [],
    edits: [],
    dkim: { status: "present", findings: rest },
    targets: WEAK_KEY_RULES,
  };
}

/** Parts whose own fixes are exact and need no ordering of their own (TLS-RPT, BIMI, DANE, ...). */
export function partFixStep(a: DomainAnalysis, category: PostureCategory, title: string): Draft | null {
  const fixes = a.fixes.filter((f) => (f.host.startsWith("_smtp._tls.") ? "tls_rpt" : f.host.includes("._bimi.") ? "bimi" : null) === category);
  if (fixes.length === 0) return null;
  return {
    id: category.replace("_", "-"),
    category,
    title,
    why: fixes.map((f) => f.reason).join(" "),
    gate: "now",
    decision: null,
    records: fixes.map((f) => ({ host: f.host, type: f.type, value: f.value })),
    edits: fixes.map((f) => ({ host: f.host, type: f.type === "CNAME" ? "CNAME" : f.type, value: f.value })),
    targets: a.findings.filter((f) => f.category === category).map((f) => f.rule),
  };
}
