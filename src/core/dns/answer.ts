// Reads a decoded DNS answer: in-response CNAME chains, RRsets as RecordData, cache lifetimes. No I/O.
import type { RecordData, RecordType } from "./types";
import { CLASS_IN, type DnsMessage, type ResourceRecord, sameName, TYPE } from "./wire";

/** RFC 2308 §5 bounds negative caching by the SOA; this service caps it lower because an
 *  instance lives for one check and a new record should show up on the next one. */
export const MAX_NEGATIVE_TTL = 60;

export interface Hop {
  target: string;
  ttl: number;
}

/** The CNAME records in `answer` starting at `from`, in chain order. Stops at the first name
 *  without a CNAME, or when a name repeats so that the caller sees (and reports) the loop. */
export function cnameHops(answer: ResourceRecord[], from: string): Hop[] {
  const hops: Hop[] = [];
  const visited = new Set([from]);
  let current = from;
  for (;;) {
    const rr = answer.find((r) => r.type === TYPE.CNAME && r.class === CLASS_IN && sameName(r.name, current));
    if (rr?.data.kind !== "CNAME") return hops;
    hops.push({ target: rr.data.target, ttl: rr.ttl });
    if (visited.has(rr.data.target)) return hops;
    visited.add(rr.data.target);
    current = rr.data.target;
  }
}

/** The RRset of `type` owned by `owner`, as the Resolver port's RecordData, and its lowest TTL. */
export function rrset<T extends RecordType>(answer: ResourceRecord[], owner: string, type: T): { records: RecordData[T][]; ttl: number } {
  const records: RecordData[T][] = [];
  let ttl = Number.POSITIVE_INFINITY;
  for (const rr of answer) {
    if (rr.type !== TYPE[type] || rr.class !== CLASS_IN || !sameName(rr.name, owner)) continue;
    const value = toRecordData(rr, type);
    if (value === null) continue;
    records.push(value);
    ttl = Math.min(ttl, rr.ttl);
  }
  return { records, ttl: records.length > 0 ? ttl : 0 };
}

function toRecordData<T extends RecordType>(rr: ResourceRecord, type: T): RecordData[T] | null {
  const d = rr.data;
  // Each branch checks that the decoded shape matches `type`; TypeScript cannot narrow the
  // generic RecordData[T] from that, hence the casts after the check.
  switch (d.kind) {
    case "A":
    case "AAAA":
      return d.kind === type ? (d.address as RecordData[T]) : null;
    case "CNAME":
    case "NS":
    case "PTR":
      return d.kind === type ? (d.target as RecordData[T]) : null;
    case "MX":
      return type === "MX" ? ({ preference: d.preference, exchange: d.exchange } as RecordData[T]) : null;
    case "TXT":
    case "SPF":
      // RFC 7208 §3.3 / RFC 6376 §3.6.2.2: one record's strings are joined with no separator.
      return d.kind === type ? (d.strings.join("") as RecordData[T]) : null;
    case "SOA":
      return type === "SOA" ? (`${d.mname} ${d.rname} ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}` as RecordData[T]) : null;
    case "TLSA":
      return type === "TLSA" ? ({ usage: d.usage, selector: d.selector, matchingType: d.matchingType, data: d.data } as RecordData[T]) : null;
    case "raw":
      return null;
  }
}

/** Lifetime of a negative answer: min(SOA TTL, SOA MINIMUM, 60 s) (RFC 2308 §5); without an SOA
 *  in the authority section it is not cached at all (RFC 2308 §5, last paragraph). */
export function negativeTtl(message: DnsMessage): number {
  const soa = message.authority.find((r) => r.type === TYPE.SOA && r.data.kind === "SOA");
  if (soa?.data.kind !== "SOA") return 0;
  return Math.min(soa.ttl, soa.data.minimum, MAX_NEGATIVE_TTL);
}

/** Lifetime of a positive answer: the smallest TTL of any answer record, so no part of a CNAME
 *  chain outlives its own TTL. */
export const positiveTtl = (message: DnsMessage): number => message.answer.reduce((min, r) => Math.min(min, r.ttl), Number.POSITIVE_INFINITY);
