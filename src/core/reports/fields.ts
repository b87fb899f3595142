// Normalizes the text of aggregate-report fields (results, domains, dates, counts). Pure, no I/O.
import { formatIPv6, parseIPv4, parseIPv6 } from "../ip/address";

/** Per-field text cap. Identifiers longer than this are absurd and refused; free text is cut. */
export const MAX_FIELD_CHARS = 1024;
/** A single record's <count> above this is not a real report (and keeps sums far from 2^53). */
export const MAX_RECORD_COUNT = 1_000_000_000;

/** Lower-cased, trimmed. Reporters send "Pass", "FAIL", "SoftFail" (parsedmarc #288). */
export const lower = (s: string): string => s.trim().toLowerCase();

/** Longest domain name (RFC 1035 §2.3.4): longer text in a domain field is cut here (docs/limits.md). */
export const MAX_DOMAIN_CHARS = 253;

/** A domain: lower-case, trimmed, without the trailing root dot, at most 253 characters. */
export const domain = (s: string): string => lower(s).replace(/\.$/, "").slice(0, MAX_DOMAIN_CHARS);

/** SPF results: the RFC 7489 schema notes "unknown" for temperror and "error" for permerror. */
export function spfResult(s: string): string {
  const v = lower(s);
  if (v === "unknown") return "temperror";
  if (v === "error") return "permerror";
  return v;
}

/** DKIM results use RFC 8601 §2.7.1 names; some reporters say "error"/"unknown" as well. */
export const dkimResult = spfResult;

/**
 * Override reason types: RFC 7489 Appendix C (forwarded, sampled_out, trusted_forwarder,
 * mailing_list, local_policy, other) and RFC 9990 (drops forwarded and sampled_out, adds
 * policy_test_mode). Both versions are accepted; anything else becomes "other".
 */
const REASONS = new Set(["forwarded", "sampled_out", "trusted_forwarder", "mailing_list", "local_policy", "other", "policy_test_mode"]);
export function reasonType(s: string): string {
  const v = lower(s).replace(/[\s-]+/g, "_");
  return REASONS.has(v) ? v : "other";
}

/** IPv4/IPv6 text (including IPv4-mapped forms); refused when it cannot be an address. */
export function sourceIp(s: string): string | null {
  const v = s.trim();
  if (v.length === 0 || v.length > 45) return null;
  if (isCanonicalIPv4(v)) return v; // what the parser below would answer, without its arrays
  // A real parser (strict dotted quad; RFC 4291 §2.2 text forms; no zone id), stored in canonical
  // form (RFC 5952 §4) so one address is one source.
  const v4 = parseIPv4(v);
  if (v4) return [...v4].join(".");
  const v6 = parseIPv6(v);
  return v6 ? formatIPv6(v6) : null;
}

/** A dotted quad already in canonical form: four decimal octets ≤ 255 without leading zeros. */
function isCanonicalIPv4(v: string): boolean {
  let parts = 0;
  let digits = 0;
  let octet = 0;
  for (let i = 0; i <= v.length; i++) {
    const c = i < v.length ? v.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || octet > 255 || ++parts > 4) return false;
      digits = 0;
      octet = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits === 1 && octet === 0) return false; // a leading zero
      if (++digits > 3) return false;
      octet = octet * 10 + (c - 0x30);
    } else return false;
  }
  return parts === 4;
}

/** A message count: a non-negative integer up to MAX_RECORD_COUNT ("12", " 12 ", "12.0"). */
export function count(s: string): number | null {
  const v = s.trim();
  if (!/^\d+(\.0*)?$/.test(v)) return null;
  const n = Number.parseInt(v, 10);
  return n <= MAX_RECORD_COUNT ? n : null;
}

/**
 * date_range begin/end are epoch seconds (RFC 7489 Appendix C). Tolerated variants seen in the
 * wild: surrounding whitespace, a decimal part, milliseconds, and ISO 8601 timestamps.
 */
export function epochSeconds(s: string): number | null {
  const v = s.trim();
  let n: number | null = null;
  if (/^\d+(\.\d*)?$/.test(v)) {
    n = Math.floor(Number.parseFloat(v));
    if (n > 100_000_000_000) n = Math.floor(n / 1000);
  } else if (/^\d{4}-\d{2}-\d{2}/.test(v)) {
    const ms = Date.parse(v);
    n = Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
  }
  // Outside 1990..2100 no real report was or will be written, and past 8.64e12 s a Date throws:
  // such a value is invalid input, never arithmetic that fails later.
  return n !== null && n >= MIN_EPOCH_SECONDS && n <= MAX_EPOCH_SECONDS ? n : null;
}

/** 1990-01-01 and 2100-01-01 (UTC), in epoch seconds: the range a report's dates may fall in. */
export const MIN_EPOCH_SECONDS = 631_152_000;
export const MAX_EPOCH_SECONDS = 4_102_444_800;

/** pct (RFC 7489 §6.3): 0..100, else unknown. */
export function pct(s: string): number | null {
  const v = s.trim();
  if (!/^\d{1,3}$/.test(v)) return null;
  const n = Number.parseInt(v, 10);
  return n <= 100 ? n : null;
}

/** Empty after trimming means absent. */
export const opt = (s: string | undefined): string | null => {
  const v = s?.trim();
  return v ? v : null;
};
