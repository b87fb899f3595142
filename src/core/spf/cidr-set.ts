// Exact sets of IPv4 and IPv6 addresses as sorted ranges, for flattening SPF records (docs/decisions.md D164).
// Pure, no I/O. Addresses are BigInts so both families use one code path.
import { formatIp, type Ip, parseIp } from "./ip";

/** Inclusive [lo, hi] ranges, sorted, disjoint and not adjacent. */
export type Ranges = readonly (readonly [bigint, bigint])[];

/** One set per address family; the SPF mechanisms of one family never match the other (RFC 7208 §5.6). */
export interface AddressSet {
  v4: Ranges;
  v6: Ranges;
}

export const EMPTY_SET: AddressSet = { v4: [], v6: [] };

const BITS = { 4: 32, 6: 128 } as const;
const top = (version: 4 | 6): bigint => (1n << BigInt(BITS[version])) - 1n;

/** Every address of both families (what "+all" matches). */
export const EVERY_ADDRESS: AddressSet = { v4: [[0n, top(4)]], v6: [[0n, top(6)]] };

const toBig = (ip: Ip): bigint => ip.bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n);

function fromBig(n: bigint, version: 4 | 6): Ip {
  const bytes = new Uint8Array(version === 4 ? 4 : 16);
  let v = n;
  for (let i = bytes.length - 1; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 255n);
  return { version, bytes };
}

function normalize(ranges: (readonly [bigint, bigint])[]): Ranges {
  const sorted = [...ranges].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: [bigint, bigint][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (!last || lo > last[1] + 1n) out.push([lo, hi]);
    else if (hi > last[1]) last[1] = hi;
  }
  return out;
}

/** The set one network stands for, or null for text that is not "address[/prefix]". */
export function cidrSet(cidr: string): AddressSet | null {
  const [addr = "", len] = cidr.split("/");
  const ip = parseIp(addr);
  if (!ip) return null;
  const bits = BITS[ip.version];
  const given = len === undefined ? bits : Number(len);
  if (!Number.isInteger(given) || given < 0 || given > 128) return null;
  // An IPv4-mapped ip6: network (::ffff:a.b.c.d) is an IPv4 network, as check_host() reads it (./ip.ts):
  // a prefix past the 32 bits of the address matches the address itself.
  const prefix = Math.min(given, bits);
  const hostBits = BigInt(bits - prefix);
  const lo = (toBig(ip) >> hostBits) << hostBits;
  const range: [bigint, bigint] = [lo, lo + (1n << hostBits) - 1n];
  return ip.version === 4 ? { v4: [range], v6: [] } : { v4: [], v6: [range] };
}

export function union(...sets: AddressSet[]): AddressSet {
  return { v4: normalize(sets.flatMap((s) => [...s.v4])), v6: normalize(sets.flatMap((s) => [...s.v6])) };
}

function subtractRanges(a: Ranges, b: Ranges): Ranges {
  const out: [bigint, bigint][] = [];
  for (const [lo0, hi] of a) {
    let lo = lo0;
    for (const [blo, bhi] of b) {
      if (bhi < lo || blo > hi) continue;
      if (blo > lo) out.push([lo, blo - 1n]);
      lo = bhi + 1n;
      if (lo > hi) break;
    }
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

/** a minus b. */
export const subtract = (a: AddressSet, b: AddressSet): AddressSet => ({ v4: subtractRanges(a.v4, b.v4), v6: subtractRanges(a.v6, b.v6) });

export const isEmpty = (s: AddressSet): boolean => s.v4.length === 0 && s.v6.length === 0;

const sameRanges = (a: Ranges, b: Ranges): boolean => a.length === b.length && a.every((r, i) => r[0] === b[i]?.[0] && r[1] === b[i]?.[1]);
export const sameSet = (a: AddressSet, b: AddressSet): boolean => sameRanges(a.v4, b.v4) && sameRanges(a.v6, b.v6);

/** The fewest CIDR blocks covering exactly one range: the largest aligned block at each step. */
function rangeCidrs(lo0: bigint, hi: bigint, version: 4 | 6): string[] {
  const bits = BITS[version];
  const out: string[] = [];
  let lo = lo0;
  while (lo <= hi) {
    let size = 0;
    while (size < bits && (lo & ((1n << BigInt(size + 1)) - 1n)) === 0n && lo + (1n << BigInt(size + 1)) - 1n <= hi) size++;
    out.push(`${formatIp(fromBig(lo, version))}/${bits - size}`);
    lo += 1n << BigInt(size);
  }
  return out;
}

/** The set as the fewest CIDR blocks, IPv4 first, each family in address order. The set stays identical. */
export function toCidrs(s: AddressSet): string[] {
  return [...s.v4.flatMap(([lo, hi]) => rangeCidrs(lo, hi, 4)), ...s.v6.flatMap(([lo, hi]) => rangeCidrs(lo, hi, 6))];
}

/** The set of a list of CIDR texts; unparsable entries are skipped. */
export const setOf = (cidrs: readonly string[]): AddressSet => union(...cidrs.map((c) => cidrSet(c) ?? EMPTY_SET));
