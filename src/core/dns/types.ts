// The resolver port every protocol module queries through. No I/O here; see doh-resolver.ts.

export type RecordType = "A" | "AAAA" | "CNAME" | "MX" | "TXT" | "NS" | "PTR" | "SOA" | "SPF" | "TLSA";

export interface MxRecord {
  preference: number;
  exchange: string; // lower case, no trailing dot; "" for a null MX (RFC 7505: ".")
}

/** RFC 6698 §2.1 TLSA RDATA; `data` is the certificate association data in lower-case hex. */
export interface TlsaRecord {
  usage: number;
  selector: number;
  matchingType: number;
  data: string;
}

/** Record data by type: TXT is one record's character-strings joined with no separator
 *  (RFC 7208 §3.3, RFC 6376 §3.6.2.2); A/AAAA are address text; CNAME/NS/PTR are names
 *  (lower case, no trailing dot); MX is MxRecord; SOA is the raw presentation text. */
export interface RecordData {
  A: string;
  AAAA: string;
  CNAME: string;
  MX: MxRecord;
  TXT: string;
  NS: string;
  PTR: string;
  SOA: string;
  SPF: string;
  TLSA: TlsaRecord;
}

/**
 * The verdict of one lookup. NOERROR with records, NODATA and NXDOMAIN are definitive;
 * SERVFAIL, REFUSED, timeouts, HTTP errors and malformed answers are all `temperror`
 * (RFC 7208 §4.4) and must never be read as "absent".
 * `chain` lists the CNAME targets followed to reach the answer (empty when none).
 * `authenticated`: every answer on the way had the AD bit set, i.e. the validating resolver proved it
 * with DNSSEC (RFC 4035 §3.2.3, RFC 6840 §5.7); absent or false: not proven either way.
 */
export type Lookup<T> =
  | { kind: "records"; records: T[]; ttl: number; chain: string[]; authenticated?: boolean }
  | { kind: "nodata"; chain: string[]; authenticated?: boolean }
  | { kind: "nxdomain"; chain: string[]; authenticated?: boolean }
  | { kind: "temperror"; reason: string };

/** The resolver's queue order (docs/decisions.md D63). "first": most other queries wait on this answer (the
 *  MX hosts and their addresses); "leaf": none does (a blocklist or TLSA lookup). Default "normal". */
export type QueryPriority = "first" | "normal" | "leaf";

export interface QueryOptions {
  priority?: QueryPriority;
}

export interface Resolver {
  /** Query `name` for `type`, following CNAMEs (capped, loop-detected) unless type is CNAME. */
  query<T extends RecordType>(name: string, type: T, opts?: QueryOptions): Promise<Lookup<RecordData[T]>>;
  /** Number of DNS queries actually sent (cache hits and de-duplicated in-flight queries excluded). */
  readonly queriesSent: number;
  /** Answers taken from the shared answer cache, when the resolver has one (docs/decisions.md D194). */
  readonly sharedHits?: number;
  /** Resolves once background work the lookups started (shared-cache writes, docs/decisions.md D194) is done. */
  settled?(): Promise<void>;
}

export const isAbsent = (l: Lookup<unknown>): boolean => l.kind === "nodata" || l.kind === "nxdomain";
