// Curated DKIM selector and provider table (docs/decisions.md D19), provider attribution, selector syntax. No I/O.

export interface ProviderEntry {
  provider: string;
  /** Selectors this provider publishes at customer domains (fixed names only; templated ones omitted). */
  selectors: string[];
  /** CNAME target suffixes that identify the provider (label-boundary match). */
  cnameSuffixes: string[];
  /** MX host suffixes and SPF include suffixes that suggest the provider is in use. */
  mxSuffixes: string[];
  spfSuffixes: string[];
}

const p = (provider: string, selectors: string[], cnameSuffixes: string[], mxSuffixes: string[] = [], spfSuffixes: string[] = []): ProviderEntry => ({
  provider,
  selectors,
  cnameSuffixes,
  mxSuffixes,
  spfSuffixes,
});

export const PROVIDERS: readonly ProviderEntry[] = [
  p("Google Workspace", ["google"], [], ["google.com", "googlemail.com"], ["_spf.google.com"]),
  p("Microsoft 365", ["selector1", "selector2"], ["onmicrosoft.com", "dkim.mail.microsoft"], ["mail.protection.outlook.com"], ["spf.protection.outlook.com"]),
  p("Mailchimp", ["k1", "k2", "k3"], ["mcsv.net"], [], ["servers.mcsv.net"]),
  p("Mandrill", ["mandrill", "mte1", "mte2"], ["mandrillapp.com"], [], ["spf.mandrillapp.com"]),
  p("Twilio SendGrid", ["s1", "s2", "smtpapi"], ["sendgrid.net"], [], ["sendgrid.net"]),
  p("Amazon SES", [], ["dkim.amazonses.com"], ["amazonses.com"], ["amazonses.com"]),
  p("Mailgun", ["smtp", "mx", "k1", "krs", "pic", "mailo", "mg"], ["mailgun.org"], ["mailgun.org"], ["mailgun.org"]),
  p("Postmark", [], ["mtasv.net"], [], ["spf.mtasv.net"]),
  p("Zoho", ["zmail", "zoho"], ["zoho.com"], ["zoho.com", "zoho.eu"], ["zoho.com", "zeptomail.net", "zcsend.net"]),
  p("Fastmail", ["fm1", "fm2", "fm3", "mesmtp"], ["dkim.fmhosted.com"], ["messagingengine.com"], ["messagingengine.com"]),
  p("Proton Mail", ["protonmail", "protonmail2", "protonmail3"], ["domains.proton.ch"], ["protonmail.ch"], ["_spf.protonmail.ch"]),
  p("Apple iCloud", ["sig1"], ["icloudmailadmin.com"], ["mail.icloud.com"], ["icloud.com"]),
  p("HubSpot", [], ["dkim.hubspotemail.net"], [], ["hubspotemail.net"]),
  p("Klaviyo", ["kl", "kl2", "km1", "km2", "kt1", "kt2", "ks1", "ks2"], ["klaviyo.com"], [], ["klaviyo.com"]),
  p("Brevo", ["brevo1", "brevo2", "mail"], ["dkim.brevo.com"], [], ["sendinblue.com", "brevo.com"]),
  p("Constant Contact", ["ctct1", "ctct2"], ["ccsend.com"], [], ["spf.constantcontact.com"]),
  p("Zendesk", ["zendesk1", "zendesk2"], ["zendesk.com"], [], ["mail.zendesk.com"]),
  p("Intercom", ["intercom"], ["dkim.intercom.io"], [], ["intercom.io"]),
  p("ActiveCampaign", ["acdkim1", "acdkim2"], ["acems1.com"], [], ["emsd1.com"]),
  p("Resend", ["resend"], [], [], []),
  p("Mimecast", [], [], ["mimecast.com"], ["mimecast.com"]),
  p("Proofpoint", ["pphosted"], [], ["pphosted.com"], ["pphosted.com"]),
];

/** Ambiguous names, never attributed by name (§4.7). */
export const GENERIC_SELECTORS = ["default", "dkim", "mail", "x", "s1024", "s2048", "k2", "k3", "selector", "key1"] as const;
/** The generic names most common in the wild (cPanel/Plesk/OpenDKIM's "default" above all): tried right after
 *  the inferred providers' selectors, before every other provider's, so a scan capped at 40 names finds them. */
export const COMMON_SELECTORS = ["default", "dkim", "mail", "selector", "key1"] as const;

const norm = (s: string) => s.toLowerCase().replace(/\.$/, "");

/** True when `name` is `suffix` or ends with "." + suffix: sendgrid.net matches u1.wl.sendgrid.net, not mysendgrid.net. */
export function matchesSuffix(name: string, suffix: string): boolean {
  const n = norm(name);
  const s = norm(suffix);
  return n === s || n.endsWith(`.${s}`);
}

/** The provider whose CNAME suffix matches `cnameTarget`; the longest matching suffix wins. */
export function attributeProvider(cnameTarget: string, table: readonly ProviderEntry[] = PROVIDERS): string | null {
  let best: { provider: string; len: number } | null = null;
  for (const e of table) {
    for (const s of e.cnameSuffixes) {
      if (matchesSuffix(cnameTarget, s) && (best === null || s.length > best.len)) best = { provider: e.provider, len: s.length };
    }
  }
  return best?.provider ?? null;
}

/** Providers suggested by MX hosts and SPF include targets, in table order (§4.7 "MX + SPF first"). */
export function inferProviders(o: { mx: string[]; spfIncludes: string[] }): string[] {
  return PROVIDERS.filter(
    (e) => o.mx.some((h) => e.mxSuffixes.some((s) => matchesSuffix(h, s))) || o.spfIncludes.some((h) => e.spfSuffixes.some((s) => matchesSuffix(h, s))),
  ).map((e) => e.provider);
}

/** Selectors to try: those of the inferred providers first, then the common generic names, then every
 *  provider's, then the other generic ones. */
export function candidateSelectors(providers: string[] = []): string[] {
  const first = PROVIDERS.filter((e) => providers.includes(e.provider)).flatMap((e) => e.selectors);
  return [...new Set([...first, ...COMMON_SELECTORS, ...PROVIDERS.flatMap((e) => e.selectors), ...GENERIC_SELECTORS])];
}

/**
 * Selector syntax (RFC 6376 §3.1 sub-domain; GCA scanner rules): dot-separated labels of 1–63
 * letters, digits, hyphens or underscores, with no leading or trailing "." or "_".
 */
export function isValidSelector(s: string): boolean {
  if (s.length === 0 || s.length > 253) return false;
  if (/^[._]|[._]$/.test(s)) return false;
  return s.split(".").every((l) => l.length >= 1 && l.length <= 63 && /^[A-Za-z0-9_-]+$/.test(l));
}
