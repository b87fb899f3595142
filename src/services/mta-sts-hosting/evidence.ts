// What a policy change is judged against: the domain's live MX hosts (DNS) and its TLS reports (the
// domain's report object, through the TLS analytics verb). Does I/O (DNS, Durable Object).
import { type EnforceVerdict, enforceVerdict } from "../../core/mta-sts/hosting";
import { conflict, dependencyUnavailable } from "../../lib/errors";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getTlsAnalytics } from "../tls-reports/analytics";

/** The window of TLS reports looked at when the caller names none: two weeks of daily reports. */
export const DEFAULT_TLS_WINDOW_DAYS = 14;

/** Every MX exchange of the domain (a policy must cover each one, RFC 8461 §4.1). */
export async function liveMxHosts(svc: Services, name: string): Promise<string[]> {
  const answer = await svc.createResolver().query(name, "MX");
  if (answer.kind === "temperror") throw dependencyUnavailable("The domain's MX records could not be read; try again shortly.");
  const hosts = answer.kind === "records" ? answer.records.map((r) => r.exchange).filter((h) => h !== "") : [];
  if (hosts.length === 0) {
    throw conflict(`${name} publishes no MX host (or a null MX): it receives no mail, so there is nothing for MTA-STS to protect.`);
  }
  return [...new Set(hosts)];
}

export interface EnforceEvidence {
  days: number;
  reports: number;
  successful: number;
  failed: number;
  verdict: EnforceVerdict;
}

export async function enforceEvidence(svc: Services, ctx: ServiceContext, domainId: number, days: number): Promise<EnforceEvidence> {
  const tls = await getTlsAnalytics(svc, ctx, domainId, days);
  // Only sessions made under an STS policy count as evidence: a sender without one (RFC 8460 §4.3
  // no-policy-found) made no certificate check of RFC 8461 §4.2, so its success says nothing of enforce.
  // Every failure counts, whatever the policy type.
  const underSts = tls.policies.filter((p) => p.policy_type === "sts").reduce((sum, p) => sum + p.successful, 0);
  const e = { days, reports: tls.summary.reports, successful: underSts, failed: tls.summary.failed };
  return { ...e, verdict: enforceVerdict(e) };
}
