// SPF's view of addresses: family, CIDR matching, networks and the macro forms (RFC 7208 §5.6, §7.3),
// over the one strict parser of core/ip/address.ts. Pure, no I/O.
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from "../ip/address";

export interface Ip {
  version: 4 | 6;
  bytes: Uint8Array; // 4 or 16 bytes, network order
}

/** Dotted-quad only: RFC 7208 §12 ip4-network uses qnum, so no leading zeros or shorthand. */
export function parseIpv4(text: string): Ip | null {
  const bytes = parseIPv4(text);
  return bytes ? { version: 4, bytes } : null;
}

/** RFC 4291 §2.2 text forms, including "::" compression and a trailing dotted IPv4 part. */
export function parseIpv6(text: string): Ip | null {
  const bytes = parseIPv6(text);
  return bytes ? { version: 6, bytes } : null;
}

/** Parses either family. IPv4-mapped IPv6 (::ffff:a.b.c.d) is treated as IPv4, as pyspf does. */
export function parseIp(text: string): Ip | null {
  const v4 = parseIpv4(text);
  if (v4) return v4;
  const v6 = parseIpv6(text);
  if (!v6) return null;
  const b = v6.bytes;
  if (b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) {
    return { version: 4, bytes: b.slice(12) };
  }
  return v6;
}

export function inCidr(ip: Ip, net: Ip, prefix: number): boolean {
  if (ip.version !== net.version) return false;
  let bits = prefix;
  for (let i = 0; i < ip.bytes.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((ip.bytes[i] ?? 0) & mask) !== ((net.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Dotted quad, or RFC 5952 §4 canonical IPv6 text (the one formatter of core/ip/address.ts). */
export const formatIp = (ip: Ip): string => (ip.version === 4 ? formatIPv4(ip.bytes) : formatIPv6(ip.bytes));

/** Network address with host bits cleared, for the flattened network list. */
export function networkOf(ip: Ip, prefix: number): string {
  const bytes = new Uint8Array(ip.bytes);
  let bits = prefix;
  for (let i = 0; i < bytes.length; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : bits <= 0 ? 0 : (0xff << (8 - bits)) & 0xff;
    bytes[i] = (bytes[i] ?? 0) & mask;
  }
  return `${formatIp({ version: ip.version, bytes })}/${prefix}`;
}

/** Reverse-lookup name labels (RFC 7208 §7.3 "i" macro and the ptr mechanism, §5.5). */
export function dotFormat(ip: Ip): string {
  if (ip.version === 4) return Array.from(ip.bytes).join(".");
  return Array.from(ip.bytes)
    .flatMap((b) => [(b >> 4).toString(16), (b & 15).toString(16)])
    .join(".");
}

export function reverseName(ip: Ip): string {
  const labels = dotFormat(ip).split(".").reverse().join(".");
  return ip.version === 4 ? `${labels}.in-addr.arpa` : `${labels}.ip6.arpa`;
}
