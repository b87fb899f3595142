// MX analysis: null MX, aliases, IP literals, unresolvable and duplicate hosts, and host IPs for DNSBL. I/O via Resolver only.
import type { MxRecord, Resolver } from "../dns/types";
import type { Finding } from "../types";

/** Hosts resolved per domain; more MX records than this are reported but not resolved. */
export const MAX_MX_HOSTS = 10;

export interface MxHost {
  host: string;
  preference: number;
  /** "ok": has A/AAAA; "unresolvable": definitively none; "temperror": unknown; "ip-literal": not a name. */
  status: "ok" | "unresolvable" | "temperror" | "ip-literal";
  /** CNAME chain followed from the MX target (non-empty means the MX points at an alias). */
  cname: string[];
  ipv4: string[];
  ipv6: string[];
}

export interface MxResult {
  status: "present" | "missing" | "invalid" | "temperror";
  records: MxRecord[];
  /** RFC 7505: a single MX with exchange "." (stored as ""): the domain accepts no mail. */
  nullMx: boolean;
  /** The domain name itself does not exist. */
  nxdomain: boolean;
  hosts: MxHost[];
  /** Unique addresses of resolvable hosts, for DNSBL checks. */
  ips: string[];
  findings: Finding[];
}

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({
  rule,
  severity,
  description,
  fix,
});

const isIpLiteral = (h: string): boolean => /^\[?\d{1,3}(\.\d{1,3}){3}\]?$/.test(h) || h.includes(":");

export async function analyzeMx(domain: string, resolver: Resolver): Promise<MxResult> {
  const out: MxResult = { status: "missing", records: [], nullMx: false, nxdomain: false, hosts: [], ips: [], findings: [] };
  const r = await resolver.query(domain, "MX");
  if (r.kind === "temperror") return { ...out, status: "temperror" };
  if (r.kind === "nxdomain") {
    out.nxdomain = true;
    out.findings.push(f("mx.nxdomain", "High", `${domain} does not exist in DNS (NXDOMAIN).`));
    return out;
  }
  if (r.kind === "nodata") {
    // RFC 5321 §5.1: without MX, senders fall back to the domain's own A/AAAA (implicit MX).
    out.findings.push(
      f(
        "mx.missing",
        "Low",
        "No MX records: senders fall back to the domain's A/AAAA address (RFC 5321 §5.1).",
        `If ${domain} receives no mail, publish a null MX (RFC 7505): ${domain}. MX 0 .`,
      ),
    );
    return out;
  }
  out.records = [...r.records].sort((a, b) => a.preference - b.preference);
  out.status = "present";
  const nulls = out.records.filter((m) => m.exchange === "");
  if (nulls.length > 0) {
    if (out.records.length > nulls.length) {
      // RFC 7505 §3: a domain publishing a null MX MUST NOT publish any other MX.
      out.status = "invalid";
      out.findings.push(
        f(
          "mx.null-mx-mixed",
          "High",
          "A null MX is published alongside other MX records (RFC 7505 §3 forbids this).",
          "Remove the null MX (MX 0 .) if the domain receives mail, or every other MX if it does not.",
        ),
      );
    } else {
      out.nullMx = true;
      out.findings.push(f("mx.null-mx", "Info", "Null MX (RFC 7505): the domain accepts no mail. It should also publish SPF v=spf1 -all and DMARC p=reject."));
      if (nulls.some((m) => m.preference !== 0)) {
        out.findings.push(f("mx.null-mx-preference", "Low", "A null MX should have preference 0 (RFC 7505 §3)."));
      }
      return out;
    }
  }
  const real = out.records.filter((m) => m.exchange !== "");
  const seen = new Set<string>();
  const unique: MxRecord[] = [];
  for (const m of real) {
    if (seen.has(m.exchange)) {
      out.findings.push(f("mx.duplicate", "Low", `MX host ${m.exchange} is listed more than once.`, "Remove the duplicate MX record."));
      continue;
    }
    seen.add(m.exchange);
    unique.push(m);
  }
  if (unique.length > MAX_MX_HOSTS) {
    out.findings.push(f("mx.too-many", "Info", `${unique.length} MX hosts; only the ${MAX_MX_HOSTS} most preferred were checked.`));
  }
  out.hosts = await Promise.all(unique.slice(0, MAX_MX_HOSTS).map((m) => resolveHost(m, resolver)));
  for (const h of out.hosts) hostFindings(h, out.findings);
  out.ips = [...new Set(out.hosts.flatMap((h) => [...h.ipv4, ...h.ipv6]))];
  if (out.hosts.length > 0 && out.hosts.every((h) => h.status === "unresolvable" || h.status === "ip-literal")) {
    out.findings.push(f("mx.no-reachable-host", "Critical", "No MX host resolves to an address: mail to this domain cannot be delivered."));
  }
  return out;
}

async function resolveHost(m: MxRecord, resolver: Resolver): Promise<MxHost> {
  const h: MxHost = { host: m.exchange, preference: m.preference, status: "ok", cname: [], ipv4: [], ipv6: [] };
  if (isIpLiteral(m.exchange)) return { ...h, status: "ip-literal" };
  // The resolver follows CNAMEs and reports the chain, so the address queries also reveal an alias.
  const [a, aaaa] = await Promise.all([resolver.query(m.exchange, "A"), resolver.query(m.exchange, "AAAA")]);
  for (const l of [a, aaaa]) if (l.kind !== "temperror" && l.chain.length > h.cname.length) h.cname = l.chain;
  if (a.kind === "records") h.ipv4 = a.records;
  if (aaaa.kind === "records") h.ipv6 = aaaa.records;
  if (h.ipv4.length + h.ipv6.length > 0) return h;
  h.status = a.kind === "temperror" || aaaa.kind === "temperror" ? "temperror" : "unresolvable";
  return h;
}

function hostFindings(h: MxHost, findings: Finding[]): void {
  if (h.status === "ip-literal") {
    findings.push(
      f(
        "mx.ip-literal",
        "High",
        `MX ${h.host} is an IP address; an MX must name a host (RFC 1035 §3.3.9, RFC 5321 §5.1).`,
        "Point the MX at a host name that has an A/AAAA record.",
      ),
    );
    return;
  }
  if (h.cname.length > 0) {
    findings.push(
      f(
        "mx.cname",
        "Medium",
        `MX ${h.host} is an alias (CNAME to ${h.cname[h.cname.length - 1]}); MX targets must not be aliases (RFC 2181 §10.3, RFC 5321 §5.1).`,
        `Point the MX directly at ${h.cname[h.cname.length - 1]}.`,
      ),
    );
  }
  if (h.status === "unresolvable") {
    findings.push(f("mx.unresolvable", "High", `MX ${h.host} has no A or AAAA record; senders cannot deliver to it.`));
  }
}
