// Curated tables for email intel: mailbox providers by MX host suffix, free mailbox domains, role local parts. No I/O.

export type ProviderKind = "mailbox" | "security_gateway" | "hosting";
export interface Provider {
  name: string;
  kind: ProviderKind;
}

/** MX host suffix → provider. Matched on whole labels (`x.google.com` matches `google.com`). */
const MX_PROVIDERS: ReadonlyArray<readonly [string, string, ProviderKind]> = [
  ["google.com", "Google Workspace", "mailbox"],
  ["googlemail.com", "Google Workspace", "mailbox"],
  ["olc.protection.outlook.com", "Outlook.com", "mailbox"],
  ["protection.outlook.com", "Microsoft 365", "mailbox"],
  ["outlook.com", "Microsoft 365", "mailbox"],
  ["hotmail.com", "Outlook.com", "mailbox"],
  ["yahoodns.net", "Yahoo", "mailbox"],
  ["zoho.com", "Zoho Mail", "mailbox"],
  ["zoho.eu", "Zoho Mail", "mailbox"],
  ["zoho.in", "Zoho Mail", "mailbox"],
  ["zohomail.com", "Zoho Mail", "mailbox"],
  ["messagingengine.com", "Fastmail", "mailbox"],
  ["protonmail.ch", "Proton Mail", "mailbox"],
  ["icloud.com", "iCloud Mail", "mailbox"],
  ["yandex.net", "Yandex Mail", "mailbox"],
  ["yandex.ru", "Yandex Mail", "mailbox"],
  ["mail.ru", "Mail.ru", "mailbox"],
  ["gmx.net", "GMX", "mailbox"],
  ["gmx.com", "GMX", "mailbox"],
  ["web.de", "WEB.DE", "mailbox"],
  ["kundenserver.de", "IONOS", "hosting"],
  ["ionos.com", "IONOS", "hosting"],
  ["tutanota.de", "Tuta", "mailbox"],
  ["hey.com", "HEY", "mailbox"],
  ["qq.com", "QQ Mail", "mailbox"],
  ["163.com", "NetEase Mail", "mailbox"],
  ["126.com", "NetEase Mail", "mailbox"],
  ["naver.com", "Naver Mail", "mailbox"],
  ["mailbox.org", "mailbox.org", "mailbox"],
  ["mimecast.com", "Mimecast", "security_gateway"],
  ["mimecast.co.za", "Mimecast", "security_gateway"],
  ["pphosted.com", "Proofpoint", "security_gateway"],
  ["ppe-hosted.com", "Proofpoint Essentials", "security_gateway"],
  ["barracudanetworks.com", "Barracuda", "security_gateway"],
  ["iphmx.com", "Cisco Secure Email", "security_gateway"],
  ["messagelabs.com", "Broadcom Email Security.cloud", "security_gateway"],
  ["mailcontrol.com", "Forcepoint", "security_gateway"],
  ["hornetsecurity.com", "Hornetsecurity", "security_gateway"],
  ["secureserver.net", "GoDaddy", "hosting"],
  ["emailsrvr.com", "Rackspace Email", "hosting"],
  ["registrar-servers.com", "Namecheap Private Email", "hosting"],
  ["ovh.net", "OVHcloud", "hosting"],
  ["amazonaws.com", "Amazon SES / WorkMail", "hosting"],
  ["mailgun.org", "Mailgun", "hosting"],
];

/** Longest suffix first, so protection.outlook.com wins over outlook.com. */
const BY_LENGTH = [...MX_PROVIDERS].sort((a, b) => b[0].length - a[0].length);

const labelSuffix = (host: string, suffix: string): boolean => host === suffix || host.endsWith(`.${suffix}`);

/** The provider of the most preferred MX host that matches the table (hosts sorted by preference). */
export function providerFromMx(hosts: readonly string[]): Provider | null {
  for (const host of hosts) {
    const hit = BY_LENGTH.find(([s]) => labelSuffix(host, s));
    if (hit) return { name: hit[1], kind: hit[2] };
  }
  return null;
}

/** Major free (consumer) mailbox domains. */
const FREE_DOMAINS = new Set([
  "gmail.com",
  "googlemail.com",
  "outlook.com",
  "live.com",
  "msn.com",
  "passport.com",
  "ymail.com",
  "rocketmail.com",
  "aol.com",
  "aim.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "proton.me",
  "protonmail.com",
  "protonmail.ch",
  "pm.me",
  "web.de",
  "mail.com",
  "email.com",
  "mail.ru",
  "inbox.ru",
  "list.ru",
  "bk.ru",
  "ya.ru",
  "rambler.ru",
  "zoho.com",
  "zohomail.com",
  "fastmail.com",
  "fastmail.fm",
  "tuta.io",
  "tuta.com",
  "tutamail.com",
  "keemail.me",
  "hey.com",
  "qq.com",
  "foxmail.com",
  "163.com",
  "126.com",
  "yeah.net",
  "sina.com",
  "sohu.com",
  "aliyun.com",
  "naver.com",
  "daum.net",
  "hanmail.net",
  "seznam.cz",
  "wp.pl",
  "o2.pl",
  "onet.pl",
  "interia.pl",
  "libero.it",
  "virgilio.it",
  "tiscali.it",
  "orange.fr",
  "wanadoo.fr",
  "free.fr",
  "laposte.net",
  "sfr.fr",
  "t-online.de",
  "freenet.de",
  "posteo.de",
  "mailbox.org",
  "btinternet.com",
  "comcast.net",
  "verizon.net",
  "att.net",
  "sbcglobal.net",
  "cox.net",
  "charter.net",
  "earthlink.net",
  "rediffmail.com",
  "hushmail.com",
  "mailfence.com",
  "disroot.org",
  "runbox.com",
  "inbox.com",
  "rogers.com",
  "shaw.ca",
  "bigpond.com",
  "optusnet.com.au",
  "xtra.co.nz",
  "uol.com.br",
  "bol.com.br",
  "terra.com.br",
  "abv.bg",
  "ukr.net",
  "i.ua",
  "walla.co.il",
]);

/** Brands whose free service exists under many country domains (hotmail.co.uk, yahoo.fr, gmx.de, ...). */
const FREE_BRANDS = new Set(["hotmail", "outlook", "live", "yahoo", "gmx", "yandex", "tutanota", "windowslive"]);

/** True when the domain is a consumer mailbox service (not a business's own domain). */
export function isFreeDomain(domain: string): boolean {
  if (FREE_DOMAINS.has(domain)) return true;
  const labels = domain.split(".");
  // brand.tld or brand.co.tld / brand.com.tld: a two-letter country suffix after the brand.
  const brand = labels[0] ?? "";
  if (!FREE_BRANDS.has(brand)) return false;
  const rest = labels.slice(1);
  return (
    (rest.length === 1 && /^[a-z]{2,3}$/.test(rest[0] ?? "")) ||
    (rest.length === 2 && /^(co|com|net|org)$/.test(rest[0] ?? "") && /^[a-z]{2}$/.test(rest[1] ?? ""))
  );
}

/** Role (function) mailboxes: reach a team or a system, not a person. Compared with separators removed. */
const ROLE_LOCALS = new Set([
  "admin",
  "administrator",
  "root",
  "postmaster",
  "hostmaster",
  "webmaster",
  "abuse",
  "security",
  "info",
  "information",
  "sales",
  "support",
  "help",
  "helpdesk",
  "noreply",
  "donotreply",
  "nobody",
  "billing",
  "accounts",
  "accounting",
  "finance",
  "invoice",
  "invoices",
  "contact",
  "contactus",
  "hr",
  "jobs",
  "careers",
  "recruiting",
  "marketing",
  "press",
  "media",
  "pr",
  "office",
  "team",
  "hello",
  "hi",
  "enquiries",
  "inquiries",
  "feedback",
  "service",
  "customerservice",
  "orders",
  "legal",
  "privacy",
  "compliance",
  "it",
  "dev",
  "devnull",
  "mail",
  "mailerdaemon",
  "list",
  "newsletter",
  "notifications",
  "alerts",
  "reception",
  "staff",
  "all",
  "everyone",
  "ops",
  "operations",
  "partners",
  "shop",
  "store",
  "purchasing",
  "welcome",
  "news",
  "subscribe",
  "unsubscribe",
]);

/** Local part without a +subaddress, lower case, without separators: "No-Reply+x" → "noreply". */
export function isRoleLocal(local: string): boolean {
  const base = local.toLowerCase().split("+")[0] ?? "";
  return ROLE_LOCALS.has(base) || ROLE_LOCALS.has(base.replace(/[-_.]/g, ""));
}
