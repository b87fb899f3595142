// DMARC failure reports (RFC 9991; the Abuse Reporting Format of RFC 5965 with the authentication
// failure fields of RFC 6591) read from a mail parsed by postal-mime. Only the fields the privacy rules
// let the service keep come out of here (docs/decisions.md D106): the third part (the original message
// or its headers) is read for nothing but its From domain when no Reported-Domain is given, and never
// returned. Pure; no I/O.
import PostalMime, { type Attachment, type Email } from "postal-mime";
import { normalizeDomainName } from "../dns/names";
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from "../ip/address";
import { err, ok, type Result } from "../types";
import { clean, first, MAX_VALUE_CHARS, readFields } from "./fields";

/** The feedback part's size cap: its fields fit in a few KB (docs/limits.md). */
export const MAX_FEEDBACK_PART_BYTES = 64 * 1024;

/** RFC 6591 §3.1 Auth-Failure values (its IANA registry), with dmarc added by RFC 7489 §7.3.1 and RFC 9991. */
export const AUTH_FAILURES = ["adsp", "bodyhash", "dkim", "dmarc", "revoked", "signature", "spf"] as const;
/** RFC 6591 §3.2 Delivery-Result values. */
const DELIVERY_RESULTS = new Set(["delivered", "spam", "policy", "reject", "other"]);

export interface FailureSample {
  /** The organisation that sent the report: its From domain, else the Reporting-MTA name. */
  reportingOrg: string | null;
  /** Arrival-Date (RFC 5965 §3.2) in epoch ms; null when missing or not a date. */
  arrivalDate: number | null;
  /** Source-IP in canonical form (RFC 5952 §4 for IPv6). */
  sourceIp: string | null;
  authFailure: (typeof AUTH_FAILURES)[number];
  /** Authentication-Results fields (RFC 8601) of the failing message, one per line, length-capped. */
  authResults: string | null;
  /** Identity-Alignment (RFC 7489 §7.3.1, kept by RFC 9991): "none", or "dkim", "spf", "dkim, spf". */
  identityAlignment: string | null;
  dkimDomain: string | null;
  dkimSelector: string | null;
  deliveryResult: string | null;
  /** The domains the report is about (Reported-Domain, else the original From domain): checked, never stored. */
  reportedDomains: string[];
}

export type ArfErrorCode =
  | "no_feedback_part"
  | "feedback_part_too_large"
  | "not_auth_failure"
  | "invalid_auth_failure"
  | "invalid_source_ip"
  | "invalid_reported_domain"
  | "no_reported_domain";
export interface ArfError {
  code: ArfErrorCode;
  message: string;
}

const FEEDBACK_TYPE = "message/feedback-report";
const HEADERS_TYPES = new Set(["text/rfc822-headers", "message/rfc822", "message/global", "message/global-headers"]);

const bytesOf = (content: Attachment["content"]): Uint8Array =>
  typeof content === "string" ? new TextEncoder().encode(content) : content instanceof Uint8Array ? content : new Uint8Array(content);

/** The top-level Content-Type's media type and report-type parameter (RFC 6522 §3). */
function outerType(email: Pick<Email, "headers">): { type: string; reportType: string | null } {
  const value = email.headers.find((h) => h.key === "content-type")?.value ?? "";
  const type = value.split(";")[0]?.trim().toLowerCase() ?? "";
  const m = /;\s*report-type\s*=\s*"?([A-Za-z0-9.+-]+)"?/i.exec(value);
  return { type, reportType: m?.[1]?.toLowerCase() ?? null };
}

/** A failure report mail: multipart/report; report-type=feedback-report (RFC 5965 §2), or one carrying a feedback part. */
export function isFeedbackReportMail(email: Pick<Email, "headers" | "attachments">): boolean {
  const t = outerType(email);
  if (t.type === "multipart/report" && t.reportType === "feedback-report") return true;
  return email.attachments.some((a) => a.mimeType === FEEDBACK_TYPE);
}

const refuse = (code: ArfErrorCode, message: string): Result<never, ArfError> => err({ code, message });

/** Source-IP through the project's one strict IP parser, stored canonical. */
function ipOf(text: string): string | null {
  const v = text.trim();
  const v4 = parseIPv4(v);
  if (v4) return formatIPv4(v4);
  const v6 = parseIPv6(v);
  return v6 ? formatIPv6(v6) : null;
}

/** RFC 5322 §3.3 date-time (Date.parse reads that form); anything else is null, never "now". */
function dateOf(text: string | null): number | null {
  if (text === null) return null;
  // Comments such as "(PDT)" (RFC 5322 §3.2.2) are dropped first.
  const ms = Date.parse(text.replace(/\([^()]*\)/g, " ").trim());
  return Number.isFinite(ms) ? ms : null;
}

/** "dkim, spf" order whatever the reporter wrote; "none" only alone; anything else is unknown (null). */
function alignmentOf(text: string | null): string | null {
  if (text === null) return null;
  const parts = [
    ...new Set(
      text
        .toLowerCase()
        .split(/[\s,]+/)
        .filter(Boolean),
    ),
  ].sort();
  if (parts.length === 1 && parts[0] === "none") return "none";
  if (parts.length === 0 || parts.some((p) => p !== "dkim" && p !== "spf")) return null;
  return parts.join(", ");
}

const domainOf = (text: string | null): string | null => {
  if (text === null) return null;
  const n = normalizeDomainName(text.replace(/^<|>$/g, ""));
  return n.ok ? n.value : null;
};

const SELECTOR = /^[A-Za-z0-9_-]{1,63}(\.[A-Za-z0-9_-]{1,63})*$/;

/** The reporter: the domain of the report's From address, else the Reporting-MTA name (RFC 5965 §3.2, "dns; name"). */
function reportingOrgOf(email: Pick<Email, "from">, reportingMta: string | null): string | null {
  const from = email.from && "address" in email.from ? email.from.address : undefined;
  const at = from?.lastIndexOf("@") ?? -1;
  const fromDomain = from && at > 0 ? domainOf(from.slice(at + 1)) : null;
  if (fromDomain) return fromDomain;
  const mta = reportingMta?.split(";").pop()?.trim() ?? null;
  return domainOf(mta);
}

/**
 * The From domain of the original message (the third part, RFC 5965 §2 (c)): read from its header
 * block only, used only to check whom the report is about when it names no Reported-Domain.
 */
function originalFromDomain(email: Pick<Email, "attachments">): string | null {
  const part = email.attachments.find((a) => HEADERS_TYPES.has(a.mimeType));
  if (!part) return null;
  const bytes = bytesOf(part.content);
  const head = new TextDecoder().decode(bytes.subarray(0, Math.min(bytes.length, MAX_FEEDBACK_PART_BYTES)));
  const fields = readFields(head);
  const from = fields ? first(fields, "from") : null;
  const m = from ? /@([^\s<>@,;"]+)\s*>?\s*$/.exec(from) : null;
  return domainOf(m?.[1] ?? null);
}

/** Reads the feedback part of a parsed report mail (RFC 5965 §3, RFC 6591 §3); strict on what is stored. */
export function readFailureReport(email: Pick<Email, "headers" | "attachments" | "from">): Result<FailureSample, ArfError> {
  const part = email.attachments.find((a) => a.mimeType === FEEDBACK_TYPE);
  if (!part) return refuse("no_feedback_part", "The mail has no message/feedback-report part (RFC 5965 §2)");
  const bytes = bytesOf(part.content);
  if (bytes.length > MAX_FEEDBACK_PART_BYTES) {
    return refuse("feedback_part_too_large", `The feedback report part is over ${MAX_FEEDBACK_PART_BYTES} bytes`);
  }
  const fields = readFields(new TextDecoder().decode(bytes));
  if (fields === null) return refuse("feedback_part_too_large", "The feedback report part has too many lines");
  const type = first(fields, "feedback-type")?.toLowerCase() ?? null;
  if (type !== "auth-failure") {
    return refuse(
      "not_auth_failure",
      `Feedback-Type is ${type === null ? "missing" : clean(type).slice(0, 40)}; only auth-failure reports (RFC 6591) are accepted`,
    );
  }
  const failure = first(fields, "auth-failure")?.toLowerCase() ?? null;
  const authFailure = AUTH_FAILURES.find((f) => f === failure);
  if (authFailure === undefined) {
    return refuse("invalid_auth_failure", `Auth-Failure is ${failure === null ? "missing" : "not one of RFC 6591's values"} (${AUTH_FAILURES.join(", ")})`);
  }
  const ipText = first(fields, "source-ip");
  const sourceIp = ipText === null ? null : ipOf(ipText);
  if (ipText !== null && sourceIp === null) return refuse("invalid_source_ip", "Source-IP is not an IP address");

  const reported = fields.get("reported-domain") ?? [];
  const reportedDomains: string[] = [];
  for (const r of reported) {
    const d = domainOf(r);
    if (d === null) return refuse("invalid_reported_domain", "Reported-Domain is not a domain name");
    reportedDomains.push(d);
  }
  if (reportedDomains.length === 0) {
    const original = originalFromDomain(email);
    if (original === null) return refuse("no_reported_domain", "The report names no Reported-Domain and no original From domain");
    reportedDomains.push(original);
  }
  const selector = first(fields, "dkim-selector");
  const delivery = first(fields, "delivery-result")?.toLowerCase() ?? null;
  const results = fields.get("authentication-results") ?? [];
  return ok({
    reportingOrg: reportingOrgOf(email, first(fields, "reporting-mta")),
    arrivalDate: dateOf(first(fields, "arrival-date") ?? first(fields, "received-date")),
    sourceIp,
    authFailure,
    authResults: results.length === 0 ? null : results.join("\n").slice(0, MAX_VALUE_CHARS),
    identityAlignment: alignmentOf(first(fields, "identity-alignment")),
    dkimDomain: domainOf(first(fields, "dkim-domain")),
    dkimSelector: selector !== null && selector.length <= 253 && SELECTOR.test(selector) ? selector.toLowerCase() : null,
    deliveryResult: delivery !== null && DELIVERY_RESULTS.has(delivery) ? delivery : null,
    reportedDomains,
  });
}

/** Parses a raw mail (as the email handler does) and reads its failure report. */
export async function parseFailureReportMail(raw: string | Uint8Array | ArrayBuffer): Promise<Result<FailureSample, ArfError>> {
  const email = await PostalMime.parse(raw, { attachmentEncoding: "arraybuffer" });
  return readFailureReport(email);
}
