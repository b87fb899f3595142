// The hosted BIMI state of one domain and selector: the files served, the record to publish and what DNS
// answers for it now, the stored validation report and the Gmail answer. Does I/O (D1, the domain's object, DNS).
import { isBimiCandidate, parseBimiRecord } from "../../core/bimi/record";
import { treeWalkOrgDomain } from "../../core/dmarc/align";
import { fetchDmarc } from "../../core/dmarc/discover";
import type { Resolver } from "../../core/dns/types";
import type { StoredPosture } from "../../core/posture/stored";
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { latestPosture } from "../domains/domain-detail";
import { getDomainInTeam } from "../domains/get-domain";
import { type DmarcFacts, type GmailReadiness, gmailReadiness, type OrgDmarcFacts } from "./gmail";
import { findHosted, type HostedBimiRow, normalizeSelector } from "./row";
import { parseValidation, type StoredValidation } from "./validation";

export interface BimiHostingView {
  domain: { id: number; name: string; verified: boolean };
  selector: string;
  hosted: boolean;
  logo: { url: string | null; sha256: string; bytes: number; uploaded_at: string | null } | null;
  certificate: {
    url: string | null;
    source_url: string | null;
    kind: "VMC" | "CMC" | null;
    not_after: string | null;
    uploaded_at: string | null;
  } | null;
  /** The TXT record to publish; null when the service's public origin is unknown (SITE_URL unset). */
  record: { host: string; type: "TXT"; value: string } | null;
  /**
   * What DNS answers now for the record receivers use (status present, missing, invalid or temperror): at
   * `host`, the domain's own name, or the Organizational Domain's when the domain has none (`from_org_domain`).
   */
  published: {
    status: string | null;
    record: string | null;
    logo: string | null;
    authority: string | null;
    host: string;
    from_org_domain: boolean;
  } | null;
  validation: StoredValidation | null;
  validated_at: string | null;
  gmail: GmailReadiness;
}

/** The public URLs of a hosted logo and certificate (`origin`: SITE_URL, or the loopback dev origin). */
export function hostedUrls(origin: string | null, domain: string, selector: string): { logo: string; authority: string } | null {
  if (origin === null) return null;
  const base = `${origin.replace(/\/+$/, "")}/bimi/${domain}/${selector}`;
  return { logo: `${base}.svg`, authority: `${base}.pem` };
}

/** The record value: a= only once a certificate is hosted (BIMI draft §4.3: a= may be empty or left out). */
export function bimiRecord(urls: { logo: string; authority: string }, withAuthority: boolean): string {
  return withAuthority ? `v=BIMI1; l=${urls.logo}; a=${urls.authority}` : `v=BIMI1; l=${urls.logo};`;
}

function dmarcFacts(p: StoredPosture | null): DmarcFacts | null {
  const snap = p?.snapshot.dmarc;
  const view = p?.records.dmarc as { host?: string; policy?: DmarcFacts["policy"] } | undefined;
  if (!snap || !view || snap.status === "temperror" || snap.status === "stale") return null;
  const fields = snap.fields ?? {};
  const pct = typeof fields.pct === "number" ? fields.pct : null;
  return {
    host: view.host ?? "",
    policy: view.policy ?? null,
    sp: typeof fields.sp === "string" ? fields.sp : null,
    pct,
    testing: fields.t === true || fields.t === "y",
  };
}

/**
 * What DNS answers now at `<selector>._bimi.<domain>` (a live lookup, as the hosting page shows the MTA-STS
 * records): the BIMI record if exactly one is there, its l= and a=. A failed lookup says so ("temperror").
 */
type Published = NonNullable<BimiHostingView["published"]>;
type Dns = { resolver: Resolver; orgDomainOf: ReturnType<typeof treeWalkOrgDomain> };

async function recordAt(resolver: Resolver, host: string, fromOrg: boolean): Promise<Published> {
  const none = { record: null, logo: null, authority: null, host, from_org_domain: fromOrg };
  const answer = await resolver.query(host, "TXT");
  if (answer.kind === "temperror") return { status: "temperror", ...none };
  const found = answer.kind === "records" ? answer.records.filter(isBimiCandidate) : [];
  if (found.length === 0) return { status: "missing", ...none };
  // Draft §4.4: more than one BIMI record at the name is as good as none.
  if (found.length > 1) return { status: "invalid", ...none, record: found.join(" | ") };
  const record = found[0] ?? "";
  const parsed = parseBimiRecord(record);
  if (!parsed.ok) return { status: "invalid", ...none, record };
  return { status: "present", ...none, record, logo: parsed.value.record.logo, authority: parsed.value.record.authority };
}

/**
 * The record a receiver would use, as the scheduled check finds it (core/bimi/check.ts): the domain's own,
 * else the Organizational Domain's (BIMI draft, "Assertion Record Discovery"). A failed lookup or tree walk
 * is temperror, never "missing".
 */
async function liveRecord(dns: Dns, name: string, selector: string): Promise<Published> {
  const own = await recordAt(dns.resolver, `${selector}._bimi.${name}`, false);
  if (own.status !== "missing") return own;
  const org = await dns.orgDomainOf(name);
  if (org === null) return { ...own, status: "temperror" };
  if (org === name) return own;
  const fallback = await recordAt(dns.resolver, `${selector}._bimi.${org}`, true);
  return fallback.status === "missing" ? own : fallback;
}

/**
 * The Organizational Domain's policy when the domain's DMARC facts come from a record of its own (a live
 * lookup, as the published BIMI record is): undefined when the facts already are the Organizational
 * Domain's or unknown, null when DNS fails.
 */
async function orgDmarcOf(dns: Dns, name: string, dmarc: DmarcFacts | null): Promise<OrgDmarcFacts | null | undefined> {
  if (dmarc === null) return undefined;
  const org = await dns.orgDomainOf(name);
  if (org === null) return null;
  if (org === name || dmarc.host === `_dmarc.${org}`) return undefined;
  const got = await fetchDmarc(org, dns.resolver);
  if (got.kind === "temperror") return null;
  const applies = got.kind === "record" && got.parsed.policyApplies;
  return { host: got.name, policy: applies ? got.parsed.effective.p : null, testing: got.kind === "record" && got.parsed.t };
}

/** The view of a row (or of nothing hosted yet) for a domain already read in the caller's team. */
export async function viewOf(
  svc: Services,
  domain: { id: number; name: string; verified: boolean; lastCheckId: string | null; lastCheckedAt: Date | null },
  selector: string,
  row: HostedBimiRow | undefined,
  origin: string | null,
): Promise<BimiHostingView> {
  const urls = hostedUrls(origin, domain.name, selector);
  const validation = parseValidation(row?.validation ?? null);
  // One resolver and one (memoised) tree walk for both lookups that need the Organizational Domain.
  const resolver = svc.createResolver();
  const dns: Dns = { resolver, orgDomainOf: treeWalkOrgDomain(resolver) };
  const [posture, published] = await Promise.all([latestPosture(svc, domain), liveRecord(dns, domain.name, selector)]);
  const dmarc = dmarcFacts(posture);
  const orgDmarc = await orgDmarcOf(dns, domain.name, dmarc);
  const hasCertificate = row?.certificatePem != null;
  return {
    domain: { id: domain.id, name: domain.name, verified: domain.verified },
    selector,
    hosted: row !== undefined,
    logo:
      row?.logoSvg != null && row.logoSha256 !== null
        ? { url: urls?.logo ?? null, sha256: row.logoSha256, bytes: new TextEncoder().encode(row.logoSvg).length, uploaded_at: iso(row.logoUploadedAt) }
        : null,
    certificate: hasCertificate
      ? {
          url: urls?.authority ?? null,
          source_url: row?.certificateUrl ?? null,
          kind: row?.markKind ?? null,
          not_after: iso(row?.certificateNotAfter),
          uploaded_at: iso(row?.certificateUploadedAt),
        }
      : null,
    record: urls ? { host: `${selector}._bimi.${domain.name}`, type: "TXT", value: bimiRecord(urls, hasCertificate) } : null,
    published,
    validation,
    validated_at: iso(row?.validatedAt),
    gmail: gmailReadiness({
      domain: domain.name,
      selector,
      dmarc,
      orgDmarc,
      published:
        published.status === "temperror"
          ? null
          : { record: published.record, logo: published.logo, authority: published.authority, host: published.host, fromOrgDomain: published.from_org_domain },
      expected: urls,
      hasLogo: row?.logoSvg != null,
      certificate: validation?.certificate ?? null,
      now: svc.clock.now(),
    }),
  };
}

/** GET: the state, for any member or token of the team (read-only included). */
export async function getBimiHosting(
  svc: Services,
  ctx: ServiceContext,
  domainId: number,
  input: { selector?: string | null; origin: string | null },
): Promise<BimiHostingView> {
  const selector = normalizeSelector(input.selector);
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  return viewOf(svc, domain, selector, await findHosted(svc, ctx.teamId, domain.id, selector), input.origin);
}
