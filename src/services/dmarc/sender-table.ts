// Curated table of major mailbox providers and email service providers: reverse-DNS suffixes, the SPF
// include each documents, and the fix to give a customer whose mail from them fails DMARC. No I/O.

export interface KnownSender {
  name: string;
  kind: "mailbox" | "esp";
  /** Forward-confirmed PTR names ending in one of these (label boundary) identify the sender. */
  ptrSuffixes: string[];
  /** The SPF include the provider documents; its flattened ip4/ip6 ranges also identify the sender. */
  spfInclude: string | null;
  /** What to publish/enable so that the provider's mail aligns with the customer's domain. */
  dkimFix: string;
}

const s = (name: string, kind: KnownSender["kind"], ptrSuffixes: string[], spfInclude: string | null, dkimFix: string): KnownSender => ({
  name,
  kind,
  ptrSuffixes,
  spfInclude,
  dkimFix,
});

/** Order matters only for SPF-range resolution when lookups are bounded: most common senders first. */
export const KNOWN_SENDERS: readonly KnownSender[] = [
  s(
    "Google",
    "mailbox",
    ["google.com", "googlemail.com"],
    "_spf.google.com",
    "turn on DKIM signing for the domain in the Google Admin console (Apps > Gmail > Authenticate email) and publish the google._domainkey TXT record it shows",
  ),
  s(
    "Microsoft 365",
    "mailbox",
    ["outbound.protection.outlook.com", "protection.outlook.com"],
    "spf.protection.outlook.com",
    "publish the selector1/selector2._domainkey CNAMEs to your onmicrosoft.com tenant and enable DKIM signing in Microsoft Defender",
  ),
  s(
    "Amazon SES",
    "esp",
    ["amazonses.com"],
    "amazonses.com",
    "verify the domain with Easy DKIM and publish the three _domainkey CNAMEs to dkim.amazonses.com; set a custom MAIL FROM domain for SPF alignment",
  ),
  s("SendGrid", "esp", ["sendgrid.net"], "sendgrid.net", "complete Domain Authentication in SendGrid and publish the s1/s2._domainkey CNAMEs it gives"),
  s(
    "Mailgun",
    "esp",
    ["mailgun.net", "mailgun.org"],
    "mailgun.org",
    "publish the DKIM TXT (or CNAME) record Mailgun shows for the sending domain and verify it",
  ),
  s(
    "Mailchimp",
    "esp",
    ["mcsv.net", "mcdlv.net", "rsgsv.net"],
    "servers.mcsv.net",
    "authenticate the domain in Mailchimp and publish the k2/k3._domainkey CNAMEs to dkim2/dkim3.mcsv.net",
  ),
  s("Postmark", "esp", ["mtasv.net"], "spf.mtasv.net", "publish the DKIM TXT record Postmark shows and a custom Return-Path CNAME to pm.mtasv.net"),
  s("SparkPost", "esp", ["sparkpostmail.com"], "sparkpostmail.com", "publish the scph._domainkey TXT record SparkPost shows for the sending domain"),
  s(
    "Zoho",
    "mailbox",
    ["zoho.com", "zoho.eu", "zohomail.com"],
    "zoho.com",
    "generate a DKIM key in the Zoho Mail admin console and publish the _domainkey TXT record it shows",
  ),
  s(
    "Yahoo",
    "mailbox",
    ["yahoo.com", "yahoodns.net"],
    null,
    "mail sent through Yahoo's own servers cannot be signed for your domain: send through a provider you can authorise",
  ),
  s(
    "Proton Mail",
    "mailbox",
    ["protonmail.ch", "proton.ch"],
    "_spf.protonmail.ch",
    "publish the protonmail/protonmail2/protonmail3._domainkey CNAMEs Proton shows in the domain settings",
  ),
  s(
    "Fastmail",
    "mailbox",
    ["messagingengine.com", "fastmail.com"],
    "spf.messagingengine.com",
    "publish the fm1/fm2/fm3._domainkey CNAMEs to dkim.fmhosted.com",
  ),
  s(
    "Brevo",
    "esp",
    ["sendinblue.com", "brevo.com"],
    "spf.brevo.com",
    "authenticate the domain in Brevo and publish the brevo1/brevo2._domainkey CNAMEs it gives",
  ),
  s("Mandrill", "esp", ["mandrillapp.com"], "spf.mandrillapp.com", "publish the mte1/mte2._domainkey CNAMEs to dkim.mandrillapp.com"),
  s("HubSpot", "esp", ["hubspotemail.net"], null, "connect the email sending domain in HubSpot and publish the hs1/hs2._domainkey CNAMEs it gives"),
];

const norm = (n: string): string => n.toLowerCase().replace(/\.$/, "");

/** The sender whose PTR suffix matches `name` at a label boundary; the longest suffix wins. */
export function senderByPtr(name: string): KnownSender | null {
  const n = norm(name);
  let best: { sender: KnownSender; len: number } | null = null;
  for (const sender of KNOWN_SENDERS) {
    for (const suffix of sender.ptrSuffixes) {
      if ((n === suffix || n.endsWith(`.${suffix}`)) && (best === null || suffix.length > best.len)) best = { sender, len: suffix.length };
    }
  }
  return best?.sender ?? null;
}

export const senderByName = (name: string): KnownSender | null => KNOWN_SENDERS.find((x) => x.name === name) ?? null;
