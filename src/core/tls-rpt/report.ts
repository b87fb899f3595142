// SMTP TLS report (RFC 8460 §4) parsing: strict JSON schema, bounded counts and sizes, normalized
// into what the service stores (per-policy totals and failure details). Pure: no I/O.
import { z } from "zod";
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from "../ip/address";
import { err, ok, type Result } from "../types";
import { type TlsBodyError, tlsReportText } from "./gunzip";

/** RFC 8460 §4.3 result types (IANA "STARTTLS Validation Result Types"); any other token is kept as reported. */
export const KNOWN_RESULT_TYPES = [
  "starttls-not-supported",
  "certificate-host-mismatch",
  "certificate-expired",
  "certificate-not-trusted",
  "validation-failure",
  "tlsa-invalid",
  "dnssec-invalid",
  "dane-required",
  "sts-policy-fetch-error",
  "sts-policy-invalid",
  "sts-webpki-invalid",
] as const;

/** Session counts are non-negative integers; anything above 10^12 a day is not a real count. */
const MAX_COUNT = 1_000_000_000_000;
export const MAX_POLICIES = 1_000;
export const MAX_FAILURE_DETAILS = 10_000;

const count = z.number().int().nonnegative().max(MAX_COUNT);
const text = (max: number) => z.string().max(max);
const token = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a result type token");
// RFC 3339 date-time (RFC 8460 §4.4 "date-range").
const dateTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i, "an RFC 3339 date-time");
// Receivers send mx-host as a list (RFC 8460 §4.4); a few send one string.
const stringList = z.union([z.array(text(253)).max(100), text(253).transform((s) => [s])]);

const FailureDetail = z.object({
  "result-type": token,
  "sending-mta-ip": text(64).optional(),
  "receiving-mx-hostname": text(253).optional(),
  "receiving-mx-helo": text(253).optional(),
  "receiving-ip": text(64).optional(),
  "failed-session-count": count,
  "additional-information": text(2048).optional(),
  "failure-reason-code": text(256).optional(),
});

const Policy = z.object({
  policy: z.object({
    "policy-type": z.enum(["tlsa", "sts", "no-policy-found"]),
    "policy-string": z.array(text(1024)).max(200).optional(),
    "policy-domain": text(253).min(1),
    "mx-host": stringList.optional(),
  }),
  summary: z.object({ "total-successful-session-count": count, "total-failure-session-count": count }),
  "failure-details": z.array(FailureDetail).max(MAX_FAILURE_DETAILS).optional(),
});

export const TlsReportSchema = z.object({
  "organization-name": text(255).min(1),
  "date-range": z.object({ "start-datetime": dateTime, "end-datetime": dateTime }),
  "contact-info": text(320).optional(),
  "report-id": text(255).min(1),
  policies: z.array(Policy).min(1).max(MAX_POLICIES),
});

export interface TlsFailureDetail {
  resultType: string;
  sendingMtaIp: string | null;
  receivingMxHostname: string | null;
  receivingIp: string | null;
  failedCount: number;
  failureReasonCode: string | null;
}

export interface TlsPolicyReport {
  policyType: "tlsa" | "sts" | "no-policy-found";
  policyDomain: string;
  policyStrings: string[];
  mxHosts: string[];
  successful: number;
  failed: number;
  failures: TlsFailureDetail[];
}

export interface ParsedTlsReport {
  orgName: string;
  reportId: string;
  contact: string | null;
  begin: Date;
  end: Date;
  policies: TlsPolicyReport[];
  successful: number;
  failed: number;
}

export type TlsReportError = TlsBodyError | { code: "invalid_json" | "invalid_report"; message: string };

/** An address as stored: the one strict parser's canonical form, or null when it is not an IP. */
function ipOrNull(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const t = raw.trim();
  const v4 = parseIPv4(t);
  if (v4) return formatIPv4(v4);
  const v6 = parseIPv6(t);
  return v6 ? formatIPv6(v6) : null;
}

const lowerHost = (h: string | undefined) => (h === undefined ? null : h.trim().replace(/\.$/, "").toLowerCase() || null);

/** Parses a plain or gzip report body into the stored shape; every refusal names what was wrong. */
export function parseTlsReport(body: Uint8Array): Result<ParsedTlsReport, TlsReportError> {
  const textOut = tlsReportText(body);
  if (!textOut.ok) return textOut;
  let raw: unknown;
  try {
    raw = JSON.parse(textOut.value);
  } catch {
    return err({ code: "invalid_json", message: "the report is not valid JSON" });
  }
  const r = TlsReportSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    return err({ code: "invalid_report", message: `${i?.path.join(".") || "report"}: ${i?.message ?? "invalid"}`.slice(0, 300) });
  }
  const d = r.data;
  const begin = new Date(d["date-range"]["start-datetime"]);
  const end = new Date(d["date-range"]["end-datetime"]);
  if (Number.isNaN(begin.getTime()) || Number.isNaN(end.getTime())) return err({ code: "invalid_report", message: "date-range: not a real date" });
  if (end.getTime() < begin.getTime()) return err({ code: "invalid_report", message: "date-range: end-datetime is before start-datetime" });
  let successful = 0;
  let failed = 0;
  let details = 0;
  const policies: TlsPolicyReport[] = [];
  for (const p of d.policies) {
    const failures = (p["failure-details"] ?? []).map(
      (f): TlsFailureDetail => ({
        resultType: f["result-type"].toLowerCase(),
        sendingMtaIp: ipOrNull(f["sending-mta-ip"]),
        receivingMxHostname: lowerHost(f["receiving-mx-hostname"]),
        receivingIp: ipOrNull(f["receiving-ip"]),
        failedCount: f["failed-session-count"],
        failureReasonCode: f["failure-reason-code"]?.trim() || null,
      }),
    );
    details += failures.length;
    if (details > MAX_FAILURE_DETAILS) return err({ code: "invalid_report", message: `more than ${MAX_FAILURE_DETAILS} failure-details entries` });
    const ok1 = p.summary["total-successful-session-count"];
    const bad = p.summary["total-failure-session-count"];
    successful += ok1;
    failed += bad;
    policies.push({
      policyType: p.policy["policy-type"],
      policyDomain: p.policy["policy-domain"].trim().replace(/\.$/, "").toLowerCase(),
      policyStrings: p.policy["policy-string"] ?? [],
      mxHosts: (p.policy["mx-host"] ?? []).map((h) => h.trim().toLowerCase()),
      successful: ok1,
      failed: bad,
      failures,
    });
  }
  return ok({
    orgName: d["organization-name"].trim(),
    reportId: d["report-id"].trim(),
    contact: d["contact-info"]?.trim() || null,
    begin,
    end,
    policies,
    successful,
    failed,
  });
}
