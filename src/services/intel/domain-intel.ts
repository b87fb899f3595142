// Live posture of any domain (nothing stored): runs analyzeDomain with this request's resolver; 503 when no resolver answered. DNS + HTTPS I/O.
import { normalizeDomainName } from "../../core/dns/names";
import { analyzeDomain, type DomainAnalysis } from "../../core/posture/analyze-domain";
import { buildRemediationPlan, plannable } from "../../core/posture/plan/build";
import { dependencyUnavailable, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { fullView, summaryView } from "./domain-views";
import { defaultLists } from "../../core/dnsbl/zones";

export function validDomain(input: string): string {
  const name = normalizeDomainName(input);
  if (!name.ok) throw validationFailed({ domain: [name.error] }, "The domain name is invalid.");
  return name.value;
}

/** Every DNS-backed part ended in temperror: nothing was learned, so the lookup itself failed. */
export function nothingResolved(a: DomainAnalysis): boolean {
  return Object.values(a.records).every((r) => r.status === "temperror");
}

export async function domainIntel(svc: Services, input: string, full: boolean) {
  const domain = validDomain(input);
  const resolver = svc.createResolver({ shared: true, ownZone: domain }); // D196
  const options = plannable({
    resolver,
    fetch: svc.fetch,
    clock: svc.clock,
    allowPrivateTargets: svc.config.webhookAllowPrivate,
    dnsbl: defaultLists({ spamhausDqsKey: svc.config.dnsblDqsKey ?? undefined }),
    // The published l= logo and a= mark certificate are fetched and validated for any domain (issue 32:
    // a broken chain, a logo mismatch or an expired VMC shows here); only domains with a BIMI record pay for it.
    checkBimiLogo: true,
  });
  const analysis = await analyzeDomain(domain, options);
  if (nothingResolved(analysis)) throw dependencyUnavailable();
  // Any domain, monitored or not: no report evidence here, so the DMARC ramp waits for reports.
  const { flattened: _watched, ...plan } = await buildRemediationPlan({ analysis, options, evidence: null });
  await resolver.settled?.(); // shared-cache writes finish before the request ends
  return full ? fullView(analysis, plan) : summaryView(analysis, plan);
}
