// "Would Gmail show the logo?": each requirement Google publishes for BIMI in Gmail, met / not met /
// cannot tell, with the fix (docs/bimi.md lists the sources). Pure: the facts are read by the caller.
import type { CertificateReport } from "./validation";

export type RequirementState = "met" | "not_met" | "cannot_tell";

export interface GmailRequirement {
  id: "dmarc_enforcement" | "dmarc_pct" | "logo_profile" | "mark_certificate" | "certificate_dates" | "logo_matches_certificate" | "record_published";
  label: string;
  state: RequirementState;
  detail: string;
  fix: string | null;
}

export interface GmailReadiness {
  verdict: "shows" | "does_not_show" | "cannot_tell";
  summary: string;
  requirements: GmailRequirement[];
  sources: { title: string; url: string }[];
}

/** The DMARC facts of the domain's last check (null: never checked, or DMARC could not be read). */
export interface DmarcFacts {
  /** `_dmarc.<name>` where the policy that applies was found (the organizational domain when inherited). */
  host: string;
  /** The policy a receiver applies to the domain (p, or sp when inherited); null when none applies. */
  policy: "none" | "quarantine" | "reject" | null;
  sp: string | null;
  pct: number | null;
  testing: boolean;
}

/** The Organizational Domain's own DMARC policy (`host`: `_dmarc.<org>`); null policy: no record or none applies. */
export interface OrgDmarcFacts {
  host: string;
  policy: "none" | "quarantine" | "reject" | null;
  testing: boolean;
}

export interface ReadinessFacts {
  domain: string;
  selector: string;
  dmarc: DmarcFacts | null;
  /**
   * When `dmarc` is a subdomain's own record, the Organizational Domain's policy, which must enforce too
   * (null: it could not be read); undefined when `dmarc` already is the Organizational Domain's.
   */
  orgDmarc?: OrgDmarcFacts | null;
  /**
   * The BIMI record DNS answers now (null: the lookup failed); `logo`/`authority`: its l= and a=; `host`: where
   * it was found, the Organizational Domain's name when the domain has none (`fromOrgDomain`).
   */
  published: { record: string | null; logo: string | null; authority: string | null; host: string; fromOrgDomain: boolean } | null;
  expected: { logo: string; authority: string } | null;
  hasLogo: boolean;
  certificate: CertificateReport | null;
  now: Date;
}

export const GMAIL_SOURCES = [
  { title: "Google Workspace Admin Help: Set up BIMI", url: "https://support.google.com/a/answer/10911320" },
  { title: "BIMI Group: Implementation guide", url: "https://bimigroup.org/implementation-guide/" },
  {
    title: "IETF draft-brand-indicators-for-message-identification",
    url: "https://datatracker.ietf.org/doc/draft-brand-indicators-for-message-identification/",
  },
];

/** An ISO time as people read it: "2025-09-08 23:59 UTC". */
const day = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "—");

const row = (id: GmailRequirement["id"], label: string, state: RequirementState, detail: string, fix: string | null = null): GmailRequirement => ({
  id,
  label,
  state,
  detail,
  fix: state === "met" ? null : fix,
});

function dmarcRows(f: ReadinessFacts): GmailRequirement[] {
  const label = "DMARC at enforcement (p=quarantine or p=reject) on the organizational domain";
  const pctLabel = "DMARC applied to all mail (pct=100 or no pct)";
  const d = f.dmarc;
  if (d === null) {
    const why = "The domain has not been checked yet, or its DMARC record could not be read; run a check.";
    return [row("dmarc_enforcement", label, "cannot_tell", why), row("dmarc_pct", pctLabel, "cannot_tell", why)];
  }
  const enforcing = (d.policy === "quarantine" || d.policy === "reject") && !d.testing;
  // The BIMI draft (§7.1 "DMARC policy") also refuses a subdomain policy of none at the organizational domain.
  const spNone = d.sp === "none";
  const enforcement =
    enforcing && !spNone
      ? row("dmarc_enforcement", label, "met", `${d.host} applies p=${d.policy}.`)
      : row(
          "dmarc_enforcement",
          label,
          "not_met",
          d.policy === null
            ? `No DMARC policy applies to ${f.domain}.`
            : d.testing
              ? `${d.host} is in testing mode (t=y), which receivers read one step weaker.`
              : spNone
                ? `${d.host} sets sp=none, so subdomains are not at enforcement.`
                : `${d.host} applies p=${d.policy}; Gmail shows logos only at quarantine or reject.`,
          `Publish p=quarantine or p=reject at ${d.host} (without t=y or sp=none) once the DMARC reports show all your mail passing.`,
        );
  return [orgEnforcement(f, enforcement), dmarcPctRow(d, pctLabel)];
}

/**
 * A subdomain's own enforcing record is not enough: the BIMI draft (§7.1 "DMARC policy") and Mail::BIMI also
 * require enforcement at the Organizational Domain, which the subdomain's record does not show.
 */
function orgEnforcement(f: ReadinessFacts, own: GmailRequirement): GmailRequirement {
  const o = f.orgDmarc;
  if (own.state !== "met" || o === undefined) return own;
  if (o === null)
    return row(own.id, own.label, "cannot_tell", `${own.detail} The Organizational Domain's DMARC record could not be read just now; reload to try again.`);
  if ((o.policy === "quarantine" || o.policy === "reject") && !o.testing) return { ...own, detail: `${own.detail} ${o.host} applies p=${o.policy}.` };
  return row(
    own.id,
    own.label,
    "not_met",
    `${own.detail} But the Organizational Domain is not at enforcement: ${o.policy === null ? `no DMARC policy applies at ${o.host}` : `${o.host} applies p=${o.policy}${o.testing ? " in testing mode (t=y)" : ""}`}.`,
    `Publish p=quarantine or p=reject at ${o.host} too (without t=y), once its DMARC reports show all its mail passing.`,
  );
}

function dmarcPctRow(d: DmarcFacts, pctLabel: string): GmailRequirement {
  const pctOk = d.pct === null || d.pct === 100;
  const pct = pctOk
    ? row("dmarc_pct", pctLabel, "met", d.pct === null ? "No pct tag: the policy applies to all mail." : "pct=100.")
    : row(
        "dmarc_pct",
        pctLabel,
        "not_met",
        `pct=${d.pct}: the policy applies to only part of the mail.`,
        `Remove pct from the record at ${d.host} (or set pct=100).`,
      );
  return pct;
}

function certificateRows(f: ReadinessFacts): GmailRequirement[] {
  const c = f.certificate;
  const markLabel = "A Verified Mark Certificate (VMC) or Common Mark Certificate (CMC) that validates";
  const datesLabel = "The certificate is within its validity dates";
  const matchLabel = "The logo in the certificate is the logo at l=";
  if (c === null) {
    const fix = "Buy a VMC (registered trademark) or CMC (mark used for at least a year) from a BIMI-trusted issuer and upload it here.";
    return [
      row("mark_certificate", markLabel, "not_met", "No mark certificate is uploaded; Gmail shows BIMI logos only with one.", fix),
      row("certificate_dates", datesLabel, "cannot_tell", "No certificate yet."),
      row("logo_matches_certificate", matchLabel, "cannot_tell", "No certificate yet."),
    ];
  }
  const failing = c.checks.filter((x) => x.ok === false && x.blocking);
  const mark =
    c.valid && c.kind !== null
      ? row(
          "mark_certificate",
          markLabel,
          "met",
          `A ${c.kind} for ${c.subject.organization ?? c.subject.common_name ?? f.domain}, issued by ${c.issuer ?? "its issuer"}.`,
        )
      : row(
          "mark_certificate",
          markLabel,
          "not_met",
          failing.length > 0 ? failing.map((x) => x.message).join(" ") : "The certificate is not a VMC or CMC.",
          failing.find((x) => x.fix)?.fix ?? "Ask the issuer for a VMC or CMC for this domain and upload the full chain.",
        );
  const from = c.not_before ? new Date(c.not_before) : null;
  const to = c.not_after ? new Date(c.not_after) : null;
  const dates =
    from === null || to === null
      ? row("certificate_dates", datesLabel, "cannot_tell", "The certificate's dates could not be read.")
      : f.now < from
        ? row("certificate_dates", datesLabel, "not_met", `Valid only from ${day(c.not_before)}.`, "Wait for the start date or ask the issuer.")
        : f.now > to
          ? row("certificate_dates", datesLabel, "not_met", `Expired on ${day(c.not_after)}.`, "Renew the certificate with the issuer and upload the new one.")
          : row("certificate_dates", datesLabel, "met", `Valid until ${day(c.not_after)}.`);
  const match =
    c.logo_matches === true
      ? row("logo_matches_certificate", matchLabel, "met", "The hosted logo is byte for byte the SVG in the certificate.")
      : c.logo_matches === false
        ? row(
            "logo_matches_certificate",
            matchLabel,
            "not_met",
            "The hosted logo differs from the SVG embedded in the certificate.",
            "Upload exactly the SVG the certificate was issued for (the issuer can send it), or have the certificate reissued for this logo.",
          )
        : row(
            "logo_matches_certificate",
            matchLabel,
            "cannot_tell",
            f.hasLogo ? "The certificate carries no SVG logo to compare." : "No logo is uploaded yet.",
          );
  return [mark, dates, match];
}

function recordRow(f: ReadinessFacts): GmailRequirement {
  const label = `A BIMI record at ${f.selector}._bimi.${f.domain} pointing l= and a= at the hosted files`;
  if (f.expected === null)
    return row("record_published", label, "cannot_tell", "The service's public address (SITE_URL) is not configured, so the URLs to publish are unknown.");
  const p = f.published;
  const fix = `Publish the TXT record shown on this page at ${f.selector}._bimi.${f.domain}.`;
  if (p === null) return row("record_published", label, "cannot_tell", "The DNS lookup of the record failed just now; reload to try again.", fix);
  if (p.record === null) return row("record_published", label, "not_met", "No BIMI record is published.", fix);
  const wrong: string[] = [];
  if (p.logo !== f.expected.logo) wrong.push(`l= is ${p.logo ?? "missing"}`);
  if (f.certificate !== null && p.authority !== f.expected.authority) wrong.push(`a= is ${p.authority ?? "missing"}`);
  // BIMI draft, "Assertion Record Discovery": with no record of its own, receivers use the Organizational Domain's.
  const where = p.fromOrgDomain ? `${f.selector}._bimi.${f.domain} has no record, so receivers use the Organizational Domain's at ${p.host}` : null;
  if (wrong.length === 0) return row("record_published", label, "met", where ? `${where}: ${p.record}` : `Published: ${p.record}`);
  const detail = where
    ? `${where}, which does not point at the hosted files (${wrong.join("; ")}).`
    : `The published record does not point at the hosted files (${wrong.join("; ")}).`;
  return row("record_published", label, "not_met", detail, fix);
}

/** Every requirement in the order a person fixes them, and the one-sentence answer. */
export function gmailReadiness(f: ReadinessFacts): GmailReadiness {
  const logo = f.hasLogo
    ? row(
        "logo_profile",
        "The logo follows SVG Tiny PS (square, with a title, no scripts or external references)",
        "met",
        "The hosted logo passed the SVG Tiny PS checks.",
      )
    : row(
        "logo_profile",
        "The logo follows SVG Tiny PS (square, with a title, no scripts or external references)",
        "not_met",
        "No logo is uploaded.",
        "Upload the logo as an SVG Tiny PS file.",
      );
  const requirements = [...dmarcRows(f), logo, ...certificateRows(f), recordRow(f)];
  const unmet = requirements.filter((r) => r.state === "not_met");
  const unknown = requirements.filter((r) => r.state === "cannot_tell");
  const verdict = unmet.length > 0 ? "does_not_show" : unknown.length > 0 ? "cannot_tell" : "shows";
  const summary =
    verdict === "shows"
      ? "Gmail would show the logo: every published requirement is met (Gmail still decides per message: it must pass DMARC, and Gmail weighs the sender's reputation)."
      : verdict === "does_not_show"
        ? `Gmail would not show the logo. Not met: ${unmet.map((r) => r.label).join("; ")}.`
        : `Cannot tell yet whether Gmail would show the logo: ${unknown.map((r) => r.detail).join(" ")}`;
  return { verdict, summary, requirements, sources: GMAIL_SOURCES };
}
