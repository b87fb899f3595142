// The hosted BIMI state of one domain and selector: the files served, the record to publish and what the
// last check saw of it, the stored validation report and the Gmail answer. Does I/O (D1, the domain's object).
import type { StoredPosture } from "../../core/posture/stored";
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { latestPosture } from "../domains/domain-detail";
import { getDomainInTeam } from "../domains/get-domain";
import { type DmarcFacts, type GmailReadiness, gmailReadiness } from "./gmail";
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
  /** What the domain's last check found at the record's name. */
  published: { checked_at: string | null; status: string | null; record: string | null; logo: string | null; authority: string | null } | null;
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

function publishedOf(p: StoredPosture | null, checkedAt: Date | null): BimiHostingView["published"] {
  const view = p?.records.bimi as { status?: string; record?: string | null; logo?: string | null; authority?: string | null } | undefined;
  if (!view) return null;
  return { checked_at: iso(checkedAt), status: view.status ?? null, record: view.record ?? null, logo: view.logo ?? null, authority: view.authority ?? null };
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
  const posture = await latestPosture(svc, domain);
  const published = selector === "default" ? publishedOf(posture, domain.lastCheckedAt) : null;
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
      dmarc: dmarcFacts(posture),
      // Only the default selector is looked up by the domain's checks; another selector's record is not known.
      published: published ? { record: published.record, logo: published.logo, authority: published.authority } : null,
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
