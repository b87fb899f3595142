// TLS-RPT record check at _smtp._tls.<domain> and its pairing with MTA-STS (RFC 8460 §3). I/O via Resolver only.
import type { Resolver } from "../dns/types";
import type { Finding, Result } from "../types";
import { err, ok } from "../types";
import { describeIssue, EXTENSION_NAME, readTagList, type TagGrammar } from "../records/tag-list";

export interface TlsRptRecord {
  rua: string[];
}

export interface TlsRptResult {
  status: "present" | "missing" | "invalid" | "temperror";
  host: string;
  record: string | null;
  parsed: TlsRptRecord | null;
  findings: Finding[];
}

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({
  rule,
  severity,
  description,
  fix,
});

/** RFC 8460 §3: records not beginning "v=TLSRPTv1" are discarded before counting. */
export const isTlsRptCandidate = (txt: string): boolean => /^v=TLSRPTv1\s*(;|$)/.test(txt.trimStart());

/** RFC 8460 §3: `v=TLSRPTv1; rua=<uri>[,<uri>]`; rua is required and URIs are mailto: or https:. */
/** `mailto:local@domain.tld` (RFC 8460 §3), checked in linear time: one "@", no whitespace, a dot inside the domain. */
function isMailtoUri(u: string): boolean {
  if (u.slice(0, 7).toLowerCase() !== "mailto:" || /\s/.test(u)) return false;
  const addr = u.slice(7);
  const at = addr.indexOf("@");
  if (at <= 0 || addr.indexOf("@", at + 1) >= 0) return false;
  // A dot with at least one character on each side.
  return addr.slice(at + 2, -1).includes(".");
}

const ruaUris = (rua: string): string[] =>
  rua
    .split(",")
    .map((u) => u.trim())
    .filter((u) => u !== "");

/**
 * RFC 8460 §3: tlsrpt-record = tlsrpt-version 1*(field-delim tlsrpt-field) [field-delim];
 * field-delim = *WSP ";" *WSP (no whitespace around "="); extension fields are named
 * (ALPHA / DIGIT) *31(ALPHA / DIGIT / "_" / "-" / ".") and ignored when not understood.
 */
export const TLS_RPT_RECORD: TagGrammar = {
  record: "TLS-RPT record",
  section: "RFC 8460 §3",
  name: EXTENSION_NAME,
  caseSensitive: false,
  spaceAroundEquals: false,
  duplicate: "record",
  malformed: "record",
  emptySpec: "trailing-only",
  first: { name: "v", value: "TLSRPTv1" },
  tags: {
    v: { required: true, section: "RFC 8460 §3" },
    rua: {
      required: true,
      section: "RFC 8460 §3",
      expected: "one or more mailto: or https: URIs separated by commas",
      valid: (v) => ruaUris(v).length > 0 && ruaUris(v).every((u) => isMailtoUri(u) || /^https:\/\/[^\s/]+/i.test(u)),
    },
  },
};

export function parseTlsRptRecord(txt: string): Result<TlsRptRecord, string> {
  const parsed = readTagList(txt.trimStart(), TLS_RPT_RECORD);
  if (!parsed.ok) return err(describeIssue(parsed.error));
  return ok({ rua: ruaUris(parsed.value.tags.get("rua") ?? "") });
}

export async function checkTlsRpt(domain: string, resolver: Resolver): Promise<TlsRptResult> {
  const host = `_smtp._tls.${domain}`;
  const base: TlsRptResult = { status: "missing", host, record: null, parsed: null, findings: [] };
  const r = await resolver.query(host, "TXT");
  if (r.kind === "temperror") return { ...base, status: "temperror" };
  const candidates = r.kind === "records" ? r.records.filter(isTlsRptCandidate) : [];
  if (candidates.length === 0) {
    return { ...base, findings: [f("tls_rpt.missing", "Low", "No TLS-RPT record: you receive no reports about TLS delivery failures to your MX.")] };
  }
  if (candidates.length > 1) {
    return {
      ...base,
      status: "invalid",
      findings: [
        f(
          "tls_rpt.multiple-records",
          "Medium",
          `${candidates.length} v=TLSRPTv1 records at ${host}: senders treat the domain as not implementing TLS-RPT (RFC 8460 §3).`,
          "Delete all but one v=TLSRPTv1 record.",
        ),
      ],
    };
  }
  const record = candidates[0] ?? "";
  const parsed = parseTlsRptRecord(record);
  if (!parsed.ok) {
    return {
      ...base,
      status: "invalid",
      record,
      findings: [f("tls_rpt.invalid-record", "Medium", `TLS-RPT record is invalid: ${parsed.error}.`)],
    };
  }
  const findings: Finding[] = [];
  if (parsed.value.rua.length > 1) {
    findings.push(f("tls_rpt.multiple-rua", "Info", "Several rua destinations: some reporters send only to the first; one destination is more reliable."));
  }
  return { ...base, status: "present", record, parsed: parsed.value, findings };
}

/**
 * Pairing advice: TLS-RPT alone reports on opportunistic TLS only, and MTA-STS without TLS-RPT
 * fails silently (RFC 8460 §1, RFC 8461 §6). Statuses are the two checks' statuses.
 */
export function tlsRptPairingFindings(tlsRpt: TlsRptResult["status"], mtaSts: TlsRptResult["status"]): Finding[] {
  if (tlsRpt === "temperror" || mtaSts === "temperror") return [];
  if (mtaSts === "present" && tlsRpt !== "present") {
    return [
      f(
        "tls_rpt.mta-sts-without-reports",
        "Medium",
        "MTA-STS is published without TLS-RPT: delivery failures it causes go unreported.",
        "Publish a _smtp._tls TXT record with v=TLSRPTv1 and a rua destination.",
      ),
    ];
  }
  if (tlsRpt === "present" && mtaSts !== "present") {
    return [f("tls_rpt.without-mta-sts", "Low", "TLS-RPT without MTA-STS (or DANE) only reports; pair it with an MTA-STS policy.")];
  }
  return [];
}
