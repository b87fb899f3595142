// Test helpers for SPF flattening: publish flattened records into a fake zone, and a check_host() without
// the lookup limits (RFC 7208 §4.6.4) to say what a record over them was meant to authorise.
import type { Zone } from "./fake-resolver";
import { inCidr, parseIp } from "../../src/core/spf/ip";
import { parseSpf, isSpfRecord } from "../../src/core/spf/parse";
import { QUALIFIER_RESULT, type SpfResult } from "../../src/core/spf/types";

/** `zone` with each record published at its host, replacing the SPF record there (other TXT stays). */
export function publish(zone: Zone, records: { host: string; strings: string[] }[]): Zone {
  const out: Zone = { ...zone };
  for (const r of records) {
    const entry = out[r.host];
    const base = entry === undefined || typeof entry === "string" ? {} : { ...entry };
    const other = (base.TXT ?? []).filter((t) => !isSpfRecord(t));
    // Receivers join the character-strings without spaces (RFC 7208 §3.3); the fake zone holds joined TXT.
    out[r.host] = { ...base, TXT: [...other, r.strings.join("")] };
  }
  return out;
}

type Entry = Exclude<Zone[string], string>;

const records = <K extends "A" | "AAAA" | "MX" | "TXT">(zone: Zone, name: string, type: K): NonNullable<Entry[K]> => {
  const e = zone[name.toLowerCase()];
  return (e === undefined || typeof e === "string" ? [] : (e[type] ?? [])) as NonNullable<Entry[K]>;
};

/**
 * check_host() for zones of static records (no macros, exists or ptr), with no lookup or void-lookup limit:
 * what the record authorises if receivers followed it all. Errors (no record, several, syntax) are permerror.
 */
export function referenceCheck(ip: string, domain: string, zone: Zone, depth = 0): SpfResult {
  const addr = parseIp(ip);
  if (!addr || depth > 40) return "permerror";
  const spf = records(zone, domain, "TXT").filter(isSpfRecord);
  if (spf.length === 0) return "none";
  if (spf.length > 1) return "permerror";
  const rec = parseSpf(spf[0] ?? "");
  if (rec.errors.length > 0) return "permerror";
  const addressMatch = (name: string, c4: number | null, c6: number | null): boolean =>
    records(zone, name, addr.version === 4 ? "A" : "AAAA").some((a) => {
      const net = parseIp(a);
      return net !== null && inCidr(addr, net, addr.version === 4 ? (c4 ?? 32) : (c6 ?? 128));
    });
  for (const m of rec.mechanisms) {
    let hit = false;
    if (m.name === "all") hit = true;
    else if (m.name === "ip4" || m.name === "ip6") {
      const net = parseIp(m.network ?? "");
      hit = net !== null && inCidr(addr, net, addr.version === 4 ? (m.cidr4 ?? 32) : (m.cidr6 ?? 128));
    } else if (m.name === "a") hit = addressMatch(m.domainSpec ?? domain, m.cidr4, m.cidr6);
    else if (m.name === "mx") hit = records(zone, m.domainSpec ?? domain, "MX").some((mx) => addressMatch(mx.exchange, m.cidr4, m.cidr6));
    else if (m.name === "include") {
      const r = referenceCheck(ip, (m.domainSpec ?? "").toLowerCase(), zone, depth + 1);
      if (r === "none" || r === "permerror" || r === "temperror") return "permerror";
      hit = r === "pass";
    } else return "permerror";
    if (hit) return QUALIFIER_RESULT[m.qualifier];
  }
  if (rec.redirect && !rec.mechanisms.some((m) => m.name === "all")) {
    const r = referenceCheck(ip, rec.redirect.value.toLowerCase(), zone, depth + 1);
    return r === "none" ? "permerror" : r;
  }
  return "neutral";
}
