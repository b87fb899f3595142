// Reverse-lookup names for PTR (RFC 1035 §3.5, RFC 3596 §2.5) and DNSBL queries (RFC 5782 §2.1). No I/O.
import { err, ok, type Result } from "../types";
import { parseIPv4, parseIPv6 } from "../ip/address";

/** `zone` defaults to in-addr.arpa / ip6.arpa; pass a DNSBL zone (e.g. "zen.spamhaus.org") to
 *  build a blocklist query name instead. */
export function reverseName(ip: string, zone?: string): Result<string> {
  const suffix = (z: string): string => z.toLowerCase().replace(/^\.+|\.+$/g, "");
  const v4 = parseIPv4(ip.trim());
  if (v4) return ok(`${[...v4].reverse().join(".")}.${suffix(zone ?? "in-addr.arpa")}`);
  const v6 = parseIPv6(ip.trim());
  if (v6) {
    const nibbles: string[] = [];
    for (const b of v6) nibbles.push((b >> 4).toString(16), (b & 0xf).toString(16));
    return ok(`${nibbles.reverse().join(".")}.${suffix(zone ?? "ip6.arpa")}`);
  }
  return err(`"${ip}" is not an IPv4 or IPv6 address`);
}
