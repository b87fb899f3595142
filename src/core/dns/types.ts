// The resolver port every protocol module queries through. No I/O here; see doh-resolver.ts.

export type RecordType = "A" | "AAAA" | "CNAME" | "MX" | "TXT" | "NS" | "PTR" | "SOA" | "SPF";

export interface MxRecord {
  preference: number;
  exchange: string; // lower case, no trailing dot; "" for a null MX (RFC 7505: ".")
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
}

/**
 * The verdict of one lookup. NOERROR with records, NODATA and NXDOMAIN are definitive;
 * SERVFAIL, REFUSED, timeouts, HTTP errors and malformed answers are all `temperror`
 * (RFC 7208 §4.4) and must never be read as "absent".
 * `chain` lists the CNAME targets followed to reach the answer (empty when none).
 */
export type Lookup<T> =
  | { kind: "records"; records: T[]; ttl: number; chain: string[] }
  | { kind: "nodata"; chain: string[] }
  | { kind: "nxdomain"; chain: string[] }
  | { kind: "temperror"; reason: string };

export interface Resolver {
  /** Query `name` for `type`, following CNAMEs (capped, loop-detected) unless type is CNAME. */
  query<T extends RecordType>(name: string, type: T): Promise<Lookup<RecordData[T]>>;
  /** Number of DNS queries actually sent (cache hits and de-duplicated in-flight queries excluded). */
  readonly queriesSent: number;
}

export const isAbsent = (l: Lookup<unknown>): boolean => l.kind === "nodata" || l.kind === "nxdomain";
