// DMARC posture analysis of a domain: discovery, record rules, report destinations, suggested record. I/O only via the Resolver.
import type { Resolver } from "../dns/types";
import type { Finding } from "../types";
import { discoverPolicy, type PolicyDiscovery } from "./discover";
import { isDmarcRecord, type DmarcPolicy, type DmarcRecord } from "./parse";
import { recordFindings, suggestRecord } from "./rules";
import { destinationFindings } from "./destinations";

export interface DmarcAnalysis {
  domain: string;
  record: string | null;
  parsed: DmarcRecord | null;
  discovery: PolicyDiscovery;
  /** The policy a receiver applies to mail from `domain` (p, or sp/np when inherited); null when none applies. */
  policy: DmarcPolicy | null;
  findings: Finding[];
  /** A corrected/suggested record per RFC 9989, or null when nothing to change. */
  fix: string | null;
}

/** BIMI prerequisite (BIMI draft §7.1; mailauth, checkdmarc): quarantine/reject, sp not none, pct 100 if present. */
export function isEnforcing(parsed: DmarcRecord): boolean {
  return parsed.effective.p !== "none" && parsed.effective.sp !== "none" && (parsed.pct === null || parsed.pct === 100) && !parsed.t;
}

export async function analyzeDmarc(domain: string, resolver: Resolver): Promise<DmarcAnalysis> {
  const d = domain.toLowerCase().replace(/\.$/, "");
  const disc = await discoverPolicy(d, resolver);
  const findings: Finding[] = [];
  const own = disc.steps[0]?.result;

  if (own?.kind === "multiple") {
    findings.push({
      rule: "dmarc.multiple-records",
      severity: "High",
      description: `_dmarc.${d} has ${own.records.length} DMARC records; receivers discard them all, so no policy of this domain applies (RFC 9989 §4.10).`,
      fix: null,
    });
  }
  if (own && own.kind !== "temperror" && own.otherTxt.length > 0) {
    const bad = own.otherTxt.filter((t) => /v\s*=\s*dmarc1/i.test(t));
    for (const t of bad)
      findings.push({
        rule: "dmarc.version-not-first",
        severity: "High",
        description: `"${t}" at _dmarc.${d} is ignored: "v=DMARC1" must be the first tag, spelled exactly (RFC 9989 §5.3).`,
        fix: null,
      });
    if (own.otherTxt.length > bad.length)
      findings.push({
        rule: "dmarc.unrelated-txt",
        severity: "Low",
        description: `_dmarc.${d} also holds unrelated TXT records; only DMARC records belong there.`,
        fix: null,
      });
  }
  // A v=DMARC1 record at the apex is never queried by receivers.
  const apex = await resolver.query(d, "TXT");
  if (apex.kind === "records" && apex.records.some(isDmarcRecord)) {
    findings.push({
      rule: "dmarc.apex-record",
      severity: "Low",
      description: `${d} publishes a DMARC record at the domain itself, where it has no effect; it belongs at _dmarc.${d}.`,
      fix: null,
    });
  }

  if (disc.status === "temperror") {
    findings.push({
      rule: "dmarc.temperror",
      severity: "Medium",
      description: `DNS lookup of ${disc.temperror?.name} failed transiently (${disc.temperror?.reason}); the DMARC policy is unknown, not absent.`,
      fix: null,
    });
    return { domain: d, record: null, parsed: null, discovery: disc, policy: null, findings, fix: null };
  }
  if (disc.status === "none" || !disc.parsed) {
    findings.push({
      rule: "dmarc.none",
      severity: "High",
      description: `No DMARC policy applies to ${d}: receivers apply no DMARC checks and send no reports (RFC 9989 §4.10.1). Publish a record at _dmarc.${d}, starting with p=none and a rua address.`,
      fix: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${d}`,
    });
    return { domain: d, record: null, parsed: null, discovery: disc, policy: null, findings, fix: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${d}` };
  }
  const parsed = disc.parsed;
  if (disc.inherited) {
    findings.push({
      rule: "dmarc.inherited",
      severity: "Info",
      description: `${d} has no record of its own; the record of ${disc.policyDomain} applies through the RFC 9989 DNS Tree Walk (§4.10.1), using its sp/np policy.`,
      fix: null,
    });
  }
  findings.push(...recordFindings(parsed, disc.policyDomain ?? d));
  findings.push(...(await destinationFindings(parsed, disc.policyDomain ?? d, resolver)));
  const policy = !parsed.policyApplies ? null : disc.inherited ? parsed.effective.sp : parsed.effective.p;
  const suggestion = suggestRecord(parsed);
  return { domain: d, record: disc.record, parsed, discovery: disc, policy, findings, fix: suggestion === parsed.text ? null : suggestion };
}
