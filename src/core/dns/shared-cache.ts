// The rules of the DNS answer cache shared across checks and requests (docs/decisions.md D194-D197):
// its key, how long an answer may be kept, and ageing a kept answer the way a recursive resolver
// does. The store itself is a port (SharedAnswerCache); the Workers Cache API adapter lives in
// src/services/dns-cache.ts. No I/O here.
import { negativeTtl, positiveTtl } from "./answer";
import type { Exchange } from "./doh-client";
import { type DnsMessage, decodeResponse, encodeResponse, RCODE, TYPE, type TypeName } from "./wire";

/** Where kept answers live. A failing store is a miss, never a failed lookup (DohResolver).
 *  `storedAt` (ms) is stamped by the resolver's own clock, the one that later ages the entry, so a
 *  store's clock cannot make an answer look younger than it is. The store may drop an entry at any
 *  time, and should drop it after `ttlSeconds`. */
export interface SharedAnswerCache {
  get(key: string): Promise<{ bytes: Uint8Array; storedAt: number } | null>;
  put(key: string, bytes: Uint8Array, ttlSeconds: number, storedAt: number): Promise<void>;
}

/** Answers whose TTL is below this are not kept: storing them longer would outlive the record's
 *  own TTL, and the saving is small (D195). */
export const SHARED_TTL_FLOOR = 30;
/** No answer is kept longer than this, whatever its TTL (D195). */
export const SHARED_TTL_CEILING = 3600;

/**
 * The key of (name, type, DNSSEC bits asked). Every query asks RD=1 and AD=1 without DO
 * (wire.ts encodeQuery), so "ad=1" is the only variant today; it is in the key so that a query
 * asking other bits can never be served an answer to a different question (RFC 6840 §5.7).
 * `name` is the canonical presentation form the resolver uses (lower case, no trailing dot).
 * `endpoints`: the DoH endpoints that answer (in any order). caches.default is one per zone, so
 * another deployment of the service on the same zone (a staging Worker on a test or filtering
 * resolver) must never serve its answers here, nor read ours (D277).
 * The host is a reserved name (RFC 6761 §6.4) so the key can never be a real URL.
 */
export function sharedCacheKey(name: string, type: TypeName, bits: { ad: boolean }, endpoints: readonly string[]): string {
  const via = encodeURIComponent([...endpoints].sort().join(" "));
  return `https://dns-cache.invalid/v1/${type}/${encodeURIComponent(name)}?ad=${bits.ad ? 1 : 0}&via=${via}`;
}

/**
 * How long an exchange may be kept, in seconds; 0 = not kept. Records: the smallest TTL of the
 * answer section (positiveTtl). NODATA and NXDOMAIN: min(SOA TTL, SOA MINIMUM) (RFC 2308 §5), capped
 * at MAX_NEGATIVE_TTL (negativeTtl), and no longer than an alias they were reached through (D276);
 * without an SOA they are not cached (RFC 2308 §5). Failures
 * (SERVFAIL, timeouts, malformed answers: temperror) and truncated answers (RFC 2181 §9) never.
 * Below the floor: not kept; above the ceiling: kept for the ceiling.
 */
export function cacheableTtl(ex: Exchange): number {
  if (ex.kind === "temperror" || ex.message.header.flags.tc) return 0;
  const ttl = endsNegative(ex) ? Math.min(positiveTtl(ex.message), negativeTtl(ex.message)) : positiveTtl(ex.message);
  if (!Number.isFinite(ttl) || ttl < SHARED_TTL_FLOOR) return 0;
  return Math.min(ttl, SHARED_TTL_CEILING);
}

/** Whether the answer is negative in the end: NODATA, NXDOMAIN, or an alias chain whose target has
 *  no record of the type asked, which a resolver proves with the target zone's SOA (RFC 2308 §2.2;
 *  RFC 6604 §2 for NXDOMAIN). Such an answer lives no longer than its negative TTL nor any alias on
 *  the way (RFC 2308 §5). Without an SOA the server did not chase the alias: the answer is the alias,
 *  true for its own TTL, and the resolver asks for the target itself. */
function endsNegative(ex: Exclude<Exchange, { kind: "temperror" }>): boolean {
  if (ex.kind !== "records") return true;
  const asked = ex.message.question[0]?.type;
  return !ex.message.answer.some((r) => r.type === asked) && ex.message.authority.some((r) => r.type === TYPE.SOA);
}

/** The bytes kept for an exchange: header flags (AD among them), question, answer and authority
 *  sections, id 0. The additional section (the OPT record) is not needed to read the answer. */
export function storedBytes(message: DnsMessage): Uint8Array | null {
  const encoded = encodeResponse({
    header: { id: 0, rcode: message.header.rcode & 0xf, opcode: message.header.opcode, flags: message.header.flags },
    question: message.question,
    answer: message.answer,
    authority: message.authority,
  });
  return encoded.ok ? encoded.value : null;
}

/**
 * A kept answer as it stands `now` (ms), or null when it has expired, was stored "in the future"
 * (a clock that went back), or cannot be decoded. Like a recursive resolver serving from its
 * cache, every answer and authority TTL is lowered by the answer's age (RFC 1035 §7.4, RFC 2308 §5:
 * the SOA TTL of a negative answer decrements too) and capped at what is left of the entry's own
 * lifetime, so whatever reads TTLs downstream (the resolver's in-memory cache, a record's `ttl`)
 * never keeps it longer than the record allows.
 */
export function ageMessage(bytes: Uint8Array, storedAt: number, now: number): DnsMessage | null {
  const decoded = decodeResponse(bytes);
  if (!decoded.ok) return null;
  const message = decoded.value;
  const age = Math.floor((now - storedAt) / 1000);
  if (!Number.isFinite(age) || now < storedAt) return null;
  const lifetime = cacheableTtl(kindOf(message));
  const left = lifetime - age;
  if (left <= 0) return null;
  const aged = (rr: DnsMessage["answer"][number]) => ({ ...rr, ttl: Math.min(Math.max(rr.ttl - age, 0), left) });
  return { ...message, answer: message.answer.map(aged), authority: message.authority.map(aged) };
}

/** The definitive kinds as doh-client classifies them (the question was checked before storing). */
function kindOf(message: DnsMessage): Exchange {
  if (message.header.rcode === RCODE.NXDOMAIN) return { kind: "nxdomain", message };
  if (message.header.rcode !== RCODE.NOERROR) return { kind: "temperror", reason: "not a definitive answer", cause: "answer" };
  return message.answer.length > 0 ? { kind: "records", message } : { kind: "nodata", message };
}

/** The bypass for a domain's own names: the zone itself and every name under it (D196), and the
 *  policy records it inherits from the domains above it, which its check reads and compares too
 *  (D275): `_dmarc.<ancestor>` (RFC 9989 §4.10 tree walk) and `<selector>._bimi.<ancestor>` (BIMI's
 *  fallback to the organizational domain). Ancestors of one label are top-level domains: their
 *  `_dmarc` record is a registry's (a public suffix's), shared by every domain under it, and kept. */
export function ownZoneBypass(zone: string): (name: string) => boolean {
  const own = zone.toLowerCase().replace(/\.$/, "");
  const labels = own.split(".");
  const above = new Set(labels.slice(1, -1).map((_, i) => labels.slice(i + 1).join(".")));
  return (name) => {
    const n = name.toLowerCase().replace(/\.$/, "");
    if (n === own || n.endsWith(`.${own}`)) return true;
    if (n.startsWith("_dmarc.")) return above.has(n.slice("_dmarc.".length));
    const bimi = /^[^.]+\._bimi\.(.+)$/.exec(n);
    return bimi !== null && above.has(bimi[1] ?? "");
  };
}
