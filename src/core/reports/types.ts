// Shapes shared by the DMARC aggregate-report pipeline (detect → decompress → parse → aggregate). No I/O.

export type ReportErrorCode =
  | "too_large" // more than maxXmlBytes of XML after decompression (counted on real output)
  | "not_a_report" // not XML, not a DMARC aggregate report, or a required field is missing/invalid
  | "malformed_archive" // corrupt gzip/zip, path traversal, nested archive
  | "multiple_files" // an archive holding more than one file
  | "forbidden_dtd" // <!DOCTYPE or <!ENTITY anywhere in the XML: refused before parsing
  | "malformed_xml" // not well-formed, or a construct/field beyond the safety caps
  | "too_many_records" // more <record> elements than one report may hold (docs/limits.md)
  | "no_records"; // no <record> element: the aggregate schema requires at least one (RFC 7489 Appendix C)

export interface ReportError {
  code: ReportErrorCode;
  message: string;
}

export type SchemaVersion = "1.0" | "2.0";

/** report_metadata (RFC 7489 Appendix C; RFC 9990 adds `generator`). Dates are epoch seconds (UTC). */
export interface ReportMetadata {
  orgName: string;
  email: string | null;
  extraContactInfo: string | null;
  reportId: string;
  begin: number;
  end: number;
  errors: string[];
  generator: string | null;
}

/** policy_published. `np`, `testing`, `discoveryMethod` are RFC 9990 only; `pct` is RFC 7489 only. */
export interface PolicyPublished {
  domain: string;
  adkim: string | null;
  aspf: string | null;
  p: string | null;
  sp: string | null;
  np: string | null;
  pct: number | null;
  fo: string | null;
  testing: string | null;
  discoveryMethod: string | null;
}

export interface OverrideReason {
  type: string;
  comment: string | null;
}

export interface DkimAuthResult {
  domain: string;
  selector: string | null;
  result: string;
  humanResult: string | null;
}

export interface SpfAuthResult {
  domain: string;
  scope: string | null;
  result: string;
}

/** One <record>, normalized: results lower-cased, domains lower-cased without a trailing dot. */
export interface ReportRecord {
  sourceIp: string;
  count: number;
  disposition: string;
  dkim: string; // policy_evaluated/dkim: the DMARC-aligned DKIM outcome (pass|fail)
  spf: string; // policy_evaluated/spf
  reasons: OverrideReason[];
  headerFrom: string;
  envelopeFrom: string | null;
  envelopeTo: string | null;
  dkimResults: DkimAuthResult[];
  spfResults: SpfAuthResult[];
}

/** One aggregated row: messages summed per UTC day and outcome. */
export interface AggregateRow {
  day: string; // YYYY-MM-DD (UTC)
  sourceIp: string;
  headerFrom: string;
  envelopeFrom: string | null;
  disposition: string;
  dmarcDkim: string;
  dmarcSpf: string;
  overrideReason: string | null; // first reason type, if any
  dkimDomain: string | null;
  dkimSelector: string | null;
  dkimResult: string | null;
  spfDomain: string | null;
  spfResult: string | null;
  messages: number;
}

/** DKIM inventory evidence: one per (d= domain, selector) seen in auth_results. */
export interface SelectorEvidence {
  domain: string;
  selector: string;
  messages: number;
  pass: number;
  fail: number; // every result other than pass (fail, neutral, policy, temperror, permerror, none)
  sourceIps: string[]; // first N distinct source IPs
  sourceIpsTruncated: boolean;
}

export interface ReportTotals {
  records: number;
  messages: number;
  /** Records and messages that did not fit under the distinct-row cap (kept out of `rows`). */
  overflowRecords: number;
  overflowMessages: number;
}

export interface ParsedReport {
  version: SchemaVersion;
  metadata: ReportMetadata;
  policy: PolicyPublished;
  rows: AggregateRow[];
  selectors: SelectorEvidence[];
  totals: ReportTotals;
  warnings: string[];
}
