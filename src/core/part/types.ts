// What one posture part declares (docs/architecture.md "Posture parts"): its lookups, analysis, status,
// record view, diff snapshot and rules, score weight, fixes and its place in events. Types only; the
// list of parts is core/posture/registry.ts. This folder imports no part, so parts may import it.
import type { z } from "zod";
import type { Resolver } from "../dns/types";
import type { Clock, Finding, HttpFetch, Severity } from "../types";

/** Status of one published part. temperror means "unknown", never "missing". */
export type PartStatus = "present" | "missing" | "invalid" | "temperror";
/** A part whose trust rests on DNSSEC may also be "insecure": the answer was not authenticated, so it is
 *  neither present nor absent (RFC 7672 §2.2). */
export type ViewStatus = PartStatus | "insecure";
/** "not_applicable": the part does not apply (e.g. MTA-STS on a null-MX domain) and carries no weight. */
export type ScoredStatus = PartStatus | "not_applicable";

export type FieldValue = string | number | boolean | null | string[];

export interface PartSnapshot {
  /** "stale": the last known good value re-used after a temperror; unknown, like temperror. */
  status: ViewStatus | "stale";
  record: string | null;
  /** Parsed fields worth comparing, e.g. dmarc {p, sp, pct, rua}, mta_sts {id, mode, mx}, dkim {"selector:s1": fingerprint}. */
  fields?: Record<string, FieldValue>;
}

/** One change of one part between two checks, before its category is attached. */
export interface FieldChange {
  field: string;
  before: FieldValue;
  after: FieldValue;
  severity: Severity;
}

export interface DnsFix {
  host: string;
  type: "TXT" | "MX" | "CNAME";
  value: string;
  reason: string;
}

/** The record view every part with a DNS record shows (its own fields come on top). */
export interface BaseView {
  status: ViewStatus;
  host: string;
  record: string | null;
}

/** Caller's settings for one analysis; each part reads what it needs. */
export interface AnalyzeSettings {
  /** DNSBL lists (default: the core set); `false` skips blocklist checks. */
  dnsbl?: readonly unknown[] | false;
  /** Sending IPs to check besides the MX addresses (DMARC report sources, SPF ip4/ip6). */
  extraIps?: string[];
  /** Fetch and check the BIMI logo (one more HTTPS request). */
  checkBimiLogo?: boolean;
  /** DKIM state from the selector inventory, when the caller has one. */
  dkim?: { status: PartStatus; findings: Finding[] };
  dmarcRua?: string | null;
  tlsRptRua?: string | null;
  /** Local development only: policy hosts may resolve to private addresses (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivateTargets?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: a part's result type is its own; the runner only passes it back to the same part.
export type AnyPart = Part<string, any, any>;
export type ResultOf<P> = P extends Part<string, infer R, infer _V> ? R : never;

export interface RunContext {
  domain: string;
  resolver: Resolver;
  fetch: HttpFetch;
  clock: Clock;
  timeoutMs: number;
  settings: AnalyzeSettings;
  /** Another part's result. Every part starts at once, so waiting on one costs only its own depth. */
  result<P extends AnyPart>(part: P): Promise<ResultOf<P>>;
}

/** Everything settled: what findings, fixes and views may read besides their own result. */
export interface SettledContext {
  domain: string;
  now: Date;
  settings: AnalyzeSettings;
  /** RFC 7505 null MX: the domain receives no mail (parked). */
  nullMx: boolean;
  /** MX hosts that resolve. */
  mxHosts: string[];
  result<P extends AnyPart>(part: P): ResultOf<P>;
}

export interface Part<Id extends string, R, V extends BaseView | null = null> {
  /** The category key in records, snapshots, findings, diffs and events ("tls_rpt"). */
  id: Id;
  /** Human name in alerts ("TLS-RPT"). */
  label: string;
  /** Points in the score model (docs/scoring.md). */
  weight: number;
  /** Receiving-side part: on a null-MX domain "missing" is not_applicable and these rules are dropped. */
  inbound?: { parkedRules: readonly string[] };
  /** Its changes raise dns.record.changed with this record_type (docs/events.md). */
  recordEvent: boolean;
  /** Severity of losing the part (present -> anything else) and of a record text change. */
  removal: Severity;
  recordChange: Severity;
  run(ctx: RunContext): Promise<R>;
  /** Where this part's queries stand in the resolver's queue (docs/decisions.md D63): "first" when most
   *  other parts' queries wait on its answers (MX), "leaf" when none does (blocklists, TLSA); default normal. */
  lookups?: "first" | "leaf";
  /** The status the score reads; null: the part was not checked this time (left out of the score). */
  scored(r: R): ViewStatus | null;
  /** Statuses that neither earn nor lose weight (an optional part that is simply not published). */
  unweighted?: readonly PartStatus[];
  findings(r: R, ctx: SettledContext): Finding[];
  snapshot(r: R): PartSnapshot | null;
  /** The record view (records.<id>); parts without a DNS record of their own have none. */
  view?(r: R, ctx: SettledContext): V;
  /** A real record view for the OpenAPI examples (a well-configured domain). */
  example?: V;
  /** Fields the full record view adds to {status, record, host}, for the OpenAPI schema. */
  viewSchema?: z.ZodRawShape;
  /** Statuses beyond present/missing/invalid/temperror that the view may show. */
  extraStatuses?: readonly "insecure"[];
  /** Severity of a changed field (default Low). */
  fieldSeverity?(field: string, before: FieldValue, after: FieldValue): Severity | undefined;
  /** Changes the field-by-field comparison cannot see (RFC 8461 §3.1 id not changed). */
  extraChanges?(prev: PartSnapshot, curr: PartSnapshot): FieldChange[];
  /** Replaces the generic comparison altogether (blocklists compare listings). */
  diff?(prev: PartSnapshot, curr: PartSnapshot): FieldChange[];
  fixes?(r: R, ctx: SettledContext): DnsFix[];
}

/** Declares a part, keeping its literal id and result type for the registry's mapped types. */
export const definePart = <const Id extends string, R, V extends BaseView | null = null>(p: Part<Id, R, V>): Part<Id, R, V> => p;
