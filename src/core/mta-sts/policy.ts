// MTA-STS TXT record and policy-file parsing, and MX pattern matching (RFC 8461 §3.1, §3.2, §4.1). No I/O.
import type { Result } from "../types";
import { err, ok } from "../types";
import { describeIssue, EXTENSION_NAME, readTagList, type TagGrammar } from "../records/tag-list";

export type StsMode = "enforce" | "testing" | "none";

export interface StsPolicy {
  mode: StsMode;
  maxAge: number;
  mx: string[];
}

/** RFC 8461 §3.2: max_age is at most 31557600 seconds (about one year). */
export const MAX_AGE_LIMIT = 31_557_600;

/** Only records beginning "v=STSv1" are candidates; others at the name are discarded (RFC 8461 §3.1). */
export const isStsCandidate = (txt: string): boolean => /^v=STSv1\s*(;|$)/.test(txt.trimStart());

/**
 * RFC 8461 §3.1: sts-text-record = sts-version 1*(sts-field-delim sts-field) [sts-field-delim];
 * sts-field-delim = *WSP ";" *WSP (no whitespace around "="); sts-id = 1*32(ALPHA / DIGIT);
 * extension fields are named (ALPHA / DIGIT) *31(ALPHA / DIGIT / "_" / "-" / ".") and ignored.
 */
export const STS_RECORD: TagGrammar = {
  record: "MTA-STS record",
  section: "RFC 8461 §3.1",
  name: EXTENSION_NAME,
  caseSensitive: false,
  spaceAroundEquals: false,
  duplicate: "record",
  malformed: "record",
  emptySpec: "trailing-only",
  first: { name: "v", value: "STSv1" },
  tags: {
    v: { required: true, section: "RFC 8461 §3.1" },
    id: { required: true, section: "RFC 8461 §3.1", expected: "1 to 32 letters or digits", valid: (v) => /^[A-Za-z0-9]{1,32}$/.test(v) },
  },
};

export function parseStsRecord(txt: string): Result<{ id: string }, string> {
  const parsed = readTagList(txt.trimStart(), STS_RECORD);
  if (!parsed.ok) return err(describeIssue(parsed.error));
  return ok({ id: parsed.value.tags.get("id") ?? "" });
}

/** RFC 8461 §3.2 mx: a host name, optionally with "*." as the whole leftmost label only. */
export function validMxPattern(pattern: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, "");
  const labels = p.split(".");
  if (labels.length < 2) return false;
  return labels.every((l, i) => (i === 0 && l === "*") || /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/.test(l)) && labels.slice(1).every((l) => l !== "*");
}

/** RFC 8461 §4.1: "*.example.net" matches exactly one extra leftmost label, never the bare domain. */
export function mxMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, "");
  const h = host.toLowerCase().replace(/\.$/, "");
  if (!p.startsWith("*.")) return p === h;
  const dot = h.indexOf(".");
  return dot > 0 && h.slice(dot + 1) === p.slice(2);
}

/**
 * RFC 8461 §3.2: CRLF-separated "key: value" lines (LF tolerated, as every implementation does);
 * unknown keys are ignored; only mx may repeat (checkdmarc/mailauth treat other repeats as errors).
 */
export function parseStsPolicy(text: string): Result<StsPolicy, string[]> {
  const errors: string[] = [];
  const seen = new Map<string, string>();
  const mx: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) {
      errors.push(`malformed line "${line.slice(0, 60)}"`);
      continue;
    }
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "mx") {
      if (validMxPattern(value)) mx.push(value.toLowerCase().replace(/\.$/, ""));
      else errors.push(`invalid mx pattern "${value.slice(0, 60)}" (a wildcard is allowed only as the whole leftmost label)`);
      continue;
    }
    if (seen.has(key)) errors.push(`duplicate key "${key}"`);
    else seen.set(key, value);
  }
  if (seen.get("version") !== "STSv1") errors.push("version must be STSv1");
  const mode = seen.get("mode");
  if (mode !== "enforce" && mode !== "testing" && mode !== "none") errors.push("mode must be enforce, testing or none");
  const maxAgeText = seen.get("max_age");
  const maxAge = maxAgeText !== undefined && /^\d{1,10}$/.test(maxAgeText) ? Number(maxAgeText) : NaN;
  if (!(maxAge >= 0 && maxAge <= MAX_AGE_LIMIT)) errors.push(`max_age must be an integer from 0 to ${MAX_AGE_LIMIT}`);
  if (mx.length === 0 && mode !== "none") errors.push("at least one mx pattern is required unless mode is none");
  if (errors.length > 0) return err(errors);
  return ok({ mode: mode as StsMode, maxAge, mx });
}
