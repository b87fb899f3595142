// DNSBL zone definitions and per-zone return-code semantics (RFC 5782; docs/decisions.md D21). No I/O.
import type { Severity } from "../types";

/** What one A answer from a DNSBL means. "unknown" is never a listing and never clean. */
export type Verdict = { kind: "listed"; reason: string; severity: Severity } | { kind: "unknown"; reason: string } | { kind: "clean" };

export interface DnsblList {
  zone: string;
  name: string;
  target: "ip" | "domain";
  /** Whether the zone answers nibble-reversed IPv6 queries (RFC 5782 §2.4). */
  ipv6: boolean;
  interpret(code: string): Verdict;
  /** The zone as shown and stored when `zone` carries a secret (a Spamhaus DQS key never leaves the query). */
  publicZone?: string;
  /** Set when the list cannot answer truthfully here: every query is "unknown" with this reason, none is sent. */
  unavailable?: string;
}

const unknown = (reason: string): Verdict => ({ kind: "unknown", reason });
const listed = (reason: string, severity: Severity = "High"): Verdict => ({ kind: "listed", reason, severity });

/** Checks every zone shares: answers outside 127/8 and Spamhaus's 127.255.255.0/24 error range. */
function common(code: string): Verdict | { octets: number[] } {
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(code);
  if (!m) return unknown(`answer ${code} is outside 127.0.0.0/8 (resolver rewriting or wildcard)`);
  const octets = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (octets[0] === 255 && octets[1] === 255) {
    const why: Record<number, string> = {
      252: "typo in the DNSBL zone name",
      254: "query refused: public/open resolver or resolver without attributable rDNS",
      255: "query refused: excessive number of queries",
    };
    return unknown(`${code}: ${why[octets[2] ?? 0] ?? "DNSBL error code"}`);
  }
  return { octets };
}

/** A zone answering fixed codes under one /24 prefix ("127.0.0" or "127.0.1"). */
function table(prefix: string, codes: Record<number, Verdict>, errors: Record<number, string> = {}) {
  return (code: string): Verdict => {
    const c = common(code);
    if ("kind" in c) return c;
    const last = c.octets[2] ?? -1;
    if (`127.${c.octets[0]}.${c.octets[1]}` !== prefix) return unknown(`unrecognised return code ${code}`);
    if (errors[last] !== undefined) return unknown(`${code}: ${errors[last]}`);
    return codes[last] ?? unknown(`unrecognised return code ${code}`);
  };
}

/** A zone whose last octet is a bitmask of sublists (SURBL, URIBL) under 127.0.0.x. */
function bitmask(bits: Record<number, [string, Severity]>, errors: Record<number, string>) {
  return (code: string): Verdict => {
    const c = common(code);
    if ("kind" in c) return c;
    const last = c.octets[2] ?? 0;
    if (c.octets[0] !== 0 || c.octets[1] !== 0) return unknown(`unrecognised return code ${code}`);
    if (errors[last] !== undefined) return unknown(`${code}: ${errors[last]}`);
    const hits = Object.entries(bits)
      .filter(([b]) => (last & Number(b)) !== 0)
      .map(([, v]) => v);
    if (hits.length === 0) return unknown(`unrecognised return code ${code}`);
    const severity = hits.some(([, s]) => s === "High") ? "High" : (hits[0]?.[1] ?? "Medium");
    return listed(hits.map(([r]) => r).join(" + "), severity);
  };
}

const SINGLE = { 2: listed("listed") };

// Spamhaus ZEN: https://docs.spamhaus.com/datasets/docs/source/10-data-type-documentation/datasets/040-zones.html
const ZEN = table("127.0.0", {
  2: listed("SBL: Spamhaus Block List (spam source)"),
  3: listed("CSS: snowshoe spam"),
  4: listed("XBL: exploited host (CBL)"),
  5: listed("XBL: exploited host"),
  6: listed("XBL: exploited host"),
  7: listed("XBL: exploited host"),
  9: listed("DROP: hijacked netblock (SBL DROP)"),
  // PBL lists end-user ranges: normal for clients, a problem only on a sending MTA.
  10: listed("PBL: ISP-maintained policy block (dynamic/end-user range)", "Low"),
  11: listed("PBL: Spamhaus-maintained policy block (end-user range)", "Low"),
  30: listed("BCL: botnet controller", "High"),
});

// Spamhaus DBL: the 10x codes are legitimate domains that were compromised ("abused-legit").
const DBL = table(
  "127.0.1",
  {
    2: listed("DBL: low-reputation domain (spam)"),
    4: listed("DBL: phishing domain", "Critical"),
    5: listed("DBL: malware domain", "Critical"),
    6: listed("DBL: botnet C&C domain", "Critical"),
    102: listed("DBL abused-legit: compromised legitimate domain (spam)"),
    103: listed("DBL abused-legit: compromised legitimate domain (redirector)"),
    104: listed("DBL abused-legit: compromised legitimate domain (phishing)", "Critical"),
    105: listed("DBL abused-legit: compromised legitimate domain (malware)", "Critical"),
    106: listed("DBL abused-legit: compromised legitimate domain (botnet C&C)", "Critical"),
  },
  { 255: "an IP address was queried against the domain list (query error)" },
);

// SURBL multi: 8 PH, 16 MW, 64 ABUSE, 128 CR (https://pipelinedata.tilda.ws/surbl).
const SURBL = bitmask(
  { 8: ["SURBL PH (phishing)", "High"], 16: ["SURBL MW (malware)", "High"], 64: ["SURBL ABUSE", "High"], 128: ["SURBL CR (cracked site)", "High"] },
  { 1: "query refused or access blocked" },
);

// URIBL multi: 127.0.0.1 is "Query Refused" (public or over-quota resolver), never a listing.
const URIBL = bitmask(
  { 2: ["URIBL black", "High"], 4: ["URIBL grey", "Low"], 8: ["URIBL red", "Medium"] },
  { 1: "query refused: public or over-quota resolver (https://uribl.com/refused.shtml)" },
);

// Mailspike: 127.0.0.2 listed; 10-14 reputation levels L5..L1, 15-20 good reputation [knowledge].
const MAILSPIKE = table("127.0.0", {
  2: listed("Mailspike: listed"),
  10: listed("Mailspike L5: worst reputation"),
  11: listed("Mailspike L4: very bad reputation"),
  12: listed("Mailspike L3: bad reputation", "Medium"),
  13: listed("Mailspike L2: suspicious", "Low"),
  14: listed("Mailspike L1: neutral, probably spam", "Low"),
  ...Object.fromEntries([15, 16, 17, 18, 19, 20].map((n) => [n, { kind: "clean" } as Verdict])),
});

export function ipList(zone: string, name: string, interpret: (c: string) => Verdict, ipv6 = false): DnsblList {
  return { zone, name, target: "ip", ipv6, interpret };
}

export function domainList(zone: string, name: string, interpret: (c: string) => Verdict): DnsblList {
  return { zone, name, target: "domain", ipv6: false, interpret };
}

export interface DefaultListOptions {
  /** Spamhaus DQS key: public Spamhaus mirrors refuse queries from Cloudflare (127.255.255.254). */
  spamhausDqsKey?: string;
}

/**
 * Spamhaus refuses or misanswers queries that come through large public resolvers (the DoH resolvers
 * this service uses): without a Data Query Service key its lists are "unknown" with this reason, never
 * "not listed" (docs/decisions.md D105). The key goes into the query name only.
 */
export const SPAMHAUS_NEEDS_DQS =
  "Spamhaus does not answer queries from public resolvers reliably; set DNSBL_DQS_KEY (a Spamhaus Data Query Service key) to check this list";
const DQS_KEY = /^[a-z0-9]{1,63}$/; // one DNS label

function spamhaus(list: DnsblList, key: string | undefined, dqsZone: string): DnsblList {
  if (key && DQS_KEY.test(key)) return { ...list, zone: `${key}.${dqsZone}`, publicZone: list.zone };
  return { ...list, unavailable: SPAMHAUS_NEEDS_DQS };
}

/** The core set (docs/decisions.md D21). SORBS is decommissioned; Barracuda needs a registered resolver. */
export function defaultLists(opts: DefaultListOptions = {}): DnsblList[] {
  const key = opts.spamhausDqsKey?.trim().toLowerCase();
  return [
    spamhaus(ipList("zen.spamhaus.org", "Spamhaus ZEN", ZEN, true), key, "zen.dq.spamhaus.net"),
    ipList("bl.spamcop.net", "SpamCop", table("127.0.0", SINGLE)),
    ipList("psbl.surriel.com", "PSBL", table("127.0.0", SINGLE)),
    ipList("bl.mailspike.net", "Mailspike", MAILSPIKE),
    // UCEPROTECT L1 lists single IPs; L2/L3 list whole ranges/ASNs and are deliberately not used.
    ipList("dnsbl-1.uceprotect.net", "UCEPROTECT L1", table("127.0.0", { 2: listed("listed", "Medium") })),
    spamhaus(domainList("dbl.spamhaus.org", "Spamhaus DBL", DBL), key, "dbl.dq.spamhaus.net"),
    domainList("multi.surbl.org", "SURBL", SURBL),
    domainList("multi.uribl.com", "URIBL", URIBL),
  ];
}
