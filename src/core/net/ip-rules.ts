// How a URL host is read (the URL Standard's IPv4 forms: octal, hex, fewer parts) and the blocked-range
// test for outbound targets (SSRF). Strict address text goes through core/ip/address.ts. No I/O.
import { parseIPv6 as parseStrictIPv6 } from "../ip/address";

/**
 * IPv4 host parser of the URL Standard (§4.3 "IPv4 parser"): 1 to 4 dot-separated parts, each
 * decimal, octal (leading 0) or hex (0x); the last part fills the remaining bytes, so
 * "2130706433", "0177.0.0.1" and "0x7f.1" all mean 127.0.0.1. One trailing dot is allowed.
 * Returns the address as an unsigned 32-bit number, or null when the text is not IPv4.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIPv4Number(part);
    if (n === null) return null;
    numbers.push(n);
  }
  const last = numbers.pop() ?? 0;
  if (numbers.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - numbers.length)) return null;
  let address = last;
  for (const [i, n] of numbers.entries()) address += n * 256 ** (3 - i);
  return address;
}

function parseIPv4Number(part: string): number | null {
  if (part === "") return null;
  let radix = 10;
  let digits = part;
  if (/^0x/i.test(part)) [radix, digits] = [16, part.slice(2)];
  else if (part.length > 1 && part.startsWith("0")) [radix, digits] = [8, part.slice(1)];
  if (digits === "") return 0; // "0x" alone is 0 in the URL Standard
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return null;
  const n = parseInt(digits, radix);
  return n > 0xffffffff ? Infinity : n; // out of range; the caller's range checks reject it
}

/** URL Standard "ends in a number": such a host must parse as IPv4 or it is invalid. */
export function endsInANumber(host: string): boolean {
  const parts = host.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  const last = parts[parts.length - 1] ?? "";
  return /^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/i.test(last);
}

/**
 * IPv6 text (RFC 4291 §2.2, brackets allowed as in URLs) to eight 16-bit groups, through the one
 * strict parser of core/ip/address.ts. Zone ids are never valid targets.
 */
export function parseIPv6(text: string): number[] | null {
  const t = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (t.includes("%")) return null;
  const bytes = parseStrictIPv6(t);
  if (bytes === null) return null;
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  return groups;
}

const v4 = (cidr: string): [number, number] => {
  const [addr, bits] = cidr.split("/");
  return [parseIPv4(addr ?? "") ?? 0, Number(bits)];
};

/** Special-purpose IPv4 space (IANA registry, RFC 6890) that a public webhook target never uses. */
const BLOCKED_V4 = [
  "0.0.0.0/8", // "this network" (RFC 791; 0.0.0.0 reaches the local host on many stacks)
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16", // private (RFC 1918)
  "100.64.0.0/10", // CGNAT shared space (RFC 6598)
  "127.0.0.0/8", // loopback (RFC 1122 §3.2.1.3)
  "169.254.0.0/16", // link-local (RFC 3927), incl. the 169.254.169.254 cloud metadata service
  "192.0.0.0/24", // IETF protocol assignments (RFC 6890)
  "192.0.2.0/24",
  "198.51.100.0/24",
  "203.0.113.0/24", // documentation (RFC 5737)
  "192.88.99.0/24", // 6to4 relay anycast, deprecated (RFC 7526)
  "198.18.0.0/15", // benchmarking (RFC 2544)
  "224.0.0.0/4", // multicast (RFC 5771)
  "240.0.0.0/4", // reserved (RFC 1112), incl. broadcast 255.255.255.255 (RFC 919)
].map(v4);

export function isBlockedIPv4(address: number): boolean {
  return BLOCKED_V4.some(([base, bits]) => bits === 0 || address >>> (32 - bits) === base >>> (32 - bits));
}

function inPrefix(groups: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

const v6 = (cidr: string): [number[], number] => {
  const [addr, bits] = cidr.split("/");
  return [parseIPv6(addr ?? "") ?? [], Number(bits)];
};

/** IPv6 space that is never a public target (IANA special-purpose registry, RFC 6890). */
const BLOCKED_V6 = [
  "::/96", // ::, ::1 (RFC 4291 §2.5.2-3) and the deprecated IPv4-compatible form (§2.5.5.1)
  "64:ff9b:1::/48", // local-use NAT64 (RFC 8215)
  "100::/64", // discard-only (RFC 6666)
  "2001:2::/48", // benchmarking (RFC 5180)
  "2001:db8::/32",
  "3fff::/20", // documentation (RFC 3849, RFC 9637)
  "fc00::/7", // unique local (RFC 4193)
  "fe80::/10", // link-local (RFC 4291 §2.5.6)
  "fec0::/10", // site-local, deprecated (RFC 3879)
  "ff00::/8", // multicast (RFC 4291 §2.7)
].map(v6);

const joinV4 = (hi: number, lo: number): number => hi * 0x10000 + lo;

/** IPv4 addresses carried inside an IPv6 address, which a translator or tunnel would reach. */
export function embeddedIPv4(g: readonly number[]): number[] {
  const at = (i: number): number => g[i] ?? 0;
  const out: number[] = [];
  if (inPrefix(g, [0, 0, 0, 0, 0, 0xffff], 96)) out.push(joinV4(at(6), at(7))); // mapped (RFC 4291 §2.5.5.2)
  if (inPrefix(g, [0, 0, 0, 0, 0xffff, 0], 96)) out.push(joinV4(at(6), at(7))); // translated (RFC 2765)
  if (inPrefix(g, [0x64, 0xff9b], 96)) out.push(joinV4(at(6), at(7))); // NAT64 well-known (RFC 6052)
  if (inPrefix(g, [0x2002], 16)) out.push(joinV4(at(1), at(2))); // 6to4 (RFC 3056 §2)
  if (inPrefix(g, [0x2001, 0], 32)) {
    // Teredo (RFC 4380 §4): server at bits 32-63, client obfuscated (inverted) in bits 96-127.
    out.push(joinV4(at(2), at(3)), joinV4(at(6) ^ 0xffff, at(7) ^ 0xffff));
  }
  return out;
}

export function isBlockedIPv6(groups: readonly number[]): boolean {
  if (BLOCKED_V6.some(([prefix, bits]) => inPrefix(groups, prefix, bits))) return true;
  return embeddedIPv4(groups).some(isBlockedIPv4);
}

/**
 * True when `ip` (IPv4 in any WHATWG form, or IPv6 with or without brackets) is in a blocked
 * range. Text that is not an IP address at all is reported as blocked: callers fail closed.
 */
export function isBlockedAddress(ip: string): boolean {
  const a4 = parseIPv4(ip);
  if (a4 !== null) return isBlockedIPv4(a4);
  const a6 = parseIPv6(ip);
  if (a6 !== null) return isBlockedIPv6(a6);
  return true;
}
