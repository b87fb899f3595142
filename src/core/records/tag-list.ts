// The one reader of "name=value; name=value" TXT records: DKIM keys and signatures (RFC 6376 §3.2),
// DMARC (RFC 7489 §6.4, RFC 9989 §5.4), MTA-STS (RFC 8461 §3.1), TLS-RPT (RFC 8460 §3) and BIMI.
// Each record type declares its grammar; the reader applies it. No I/O.
import type { Result } from "../types";
import { err, ok } from "../types";

/** What a value that fails its tag's rule does, as the record's RFC says. */
export type InvalidValue =
  /** The whole record is invalid (e.g. a BIMI l= that is not https). */
  | "record"
  /** The tag is ignored, as if absent; the issue is reported. */
  | "ignore";

export interface TagRule {
  required?: boolean;
  /** Accepts a (trimmed) value; absent means any value. */
  valid?: (value: string) => boolean;
  /** Default "record". */
  invalid?: InvalidValue;
  /** The RFC section defining the tag, quoted in messages. */
  section: string;
  /** What a valid value looks like, for messages ("none, quarantine or reject"). */
  expected?: string;
}

export interface TagGrammar {
  /** "DMARC record", "TLS-RPT record", ... for messages. */
  record: string;
  /** The section with the record's formal grammar. */
  section: string;
  /** Allowed tag names (tested on the name as written). */
  name: RegExp;
  /** DKIM tag names are case-sensitive (RFC 6376 §3.2); the others are compared lower-cased. */
  caseSensitive: boolean;
  /** Whitespace around "=": DKIM and DMARC allow it ([FWS] / *WSP); MTA-STS and TLS-RPT do not. */
  spaceAroundEquals: boolean;
  /** A tag named twice: the whole list is invalid, or the first copy is kept and the rest reported. */
  duplicate: "record" | "keep-first";
  /** A part without "=" (or with an invalid name): the list is invalid, or the part is skipped and reported. */
  malformed: "record" | "skip";
  /** ";;": DKIM allows an empty spec only at the end (tag-list = tag-spec *(";" tag-spec) [";"]). */
  emptySpec: "allowed" | "trailing-only";
  /** The first tag must be this name with this exact value (v=DMARC1, v=STSv1, ...). */
  first?: { name: string; value: string };
  /** Known tags; any other well-formed tag is ignored (reported as unknown-tag). */
  tags: Record<string, TagRule>;
}

export interface TagIssue {
  kind: "malformed" | "invalid-name" | "duplicate" | "empty-spec" | "space-around-equals" | "first-tag" | "missing-tag" | "invalid-value" | "unknown-tag";
  /** The tag name (as stored: lower-cased unless case-sensitive), when the issue is about one tag. */
  tag: string | null;
  value: string | null;
  /** 0-based character offset of the tag-spec in the record text. */
  position: number;
  section: string;
  message: string;
}

export interface TagList {
  /** Tag names in order of appearance (lower-cased unless case-sensitive), duplicates excluded. */
  order: string[];
  /** Accepted values: trimmed, CRLF folding removed; tags with an ignored invalid value are absent. */
  tags: Map<string, string>;
  /** Character offset of each accepted tag. */
  positions: Map<string, number>;
  /** Problems that did not invalidate the record: skipped parts, extra copies, ignored values, unknown tags. */
  issues: TagIssue[];
}

/** FWS/WSP trimming: spaces, tabs and (DKIM) folded line breaks. A loop, not a regex: an anchored
 *  trailing-whitespace pattern backtracks quadratically on long inner runs of spaces. */
const isWs = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\r" || c === "\n";
function trimWs(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isWs(s[start])) start++;
  while (end > start && isWs(s[end - 1])) end--;
  return s.slice(start, end);
}

/** Reads `text` with `grammar`; an error names the first problem that makes the whole record invalid. */
export function readTagList(text: string, grammar: TagGrammar): Result<TagList, TagIssue> {
  const issue = (kind: TagIssue["kind"], tag: string | null, value: string | null, position: number, message: string, section = grammar.section): TagIssue => ({
    kind,
    tag,
    value,
    position,
    section,
    message,
  });
  const out: TagList = { order: [], tags: new Map(), positions: new Map(), issues: [] };
  const seen = new Set<string>();
  const parts = text.split(";");
  let offset = 0;
  for (let i = 0; i < parts.length; i++) {
    const raw = parts[i] ?? "";
    const position = offset + (raw.length - raw.trimStart().length);
    offset += raw.length + 1;
    const part = trimWs(raw.replace(/\r\n/g, ""));
    if (part === "") {
      if (grammar.emptySpec === "allowed" || i === parts.length - 1) continue;
      return err(issue("empty-spec", null, null, position, `empty tag-spec (";;") in the ${grammar.record}`));
    }
    const eq = part.indexOf("=");
    const written = eq < 0 ? part : trimWs(part.slice(0, eq));
    const name = grammar.caseSensitive ? written : written.toLowerCase();
    const value = eq < 0 ? "" : trimWs(part.slice(eq + 1));
    const bad =
      eq <= 0
        ? issue("malformed", null, null, position, `"${part.slice(0, 40)}" is not a tag=value pair`)
        : !grammar.name.test(written)
          ? issue("invalid-name", written.slice(0, 40), value, position, `"${written.slice(0, 40)}" is not a valid tag name`)
          : null;
    if (bad) {
      if (grammar.malformed === "record") return err(bad);
      out.issues.push(bad);
      continue;
    }
    if (!grammar.spaceAroundEquals && (/[ \t]$/.test(part.slice(0, eq)) || /^[ \t]/.test(part.slice(eq + 1)))) {
      return err(issue("space-around-equals", name, value, position, `whitespace around "=" in "${part.slice(0, 40)}" is not allowed`));
    }
    if (out.order.length === 0 && grammar.first && (name !== grammar.first.name || value !== grammar.first.value)) {
      return err(issue("first-tag", name, value, position, `the ${grammar.record} must start with ${grammar.first.name}=${grammar.first.value}`));
    }
    if (seen.has(name)) {
      const dup = issue("duplicate", name, value, position, `duplicate tag "${name}"`);
      if (grammar.duplicate === "record") return err(dup);
      out.issues.push(dup);
      continue;
    }
    seen.add(name);
    out.order.push(name);
    const rule = grammar.tags[name];
    if (!rule) {
      out.issues.push(issue("unknown-tag", name, value, position, `unknown tag "${name}" is ignored`));
      out.tags.set(name, value);
      out.positions.set(name, position);
      continue;
    }
    if (rule.valid && !rule.valid(value)) {
      const expected = rule.expected ? ` (expected ${rule.expected})` : "";
      const invalid = issue("invalid-value", name, value, position, `${name}=${value.slice(0, 60)} is not a valid value${expected}`, rule.section);
      if ((rule.invalid ?? "record") === "record") return err(invalid);
      out.issues.push(invalid);
      continue;
    }
    out.tags.set(name, value);
    out.positions.set(name, position);
  }
  if (grammar.first && out.order.length === 0) {
    return err(issue("first-tag", null, null, 0, `the ${grammar.record} must start with ${grammar.first.name}=${grammar.first.value}`));
  }
  for (const [name, rule] of Object.entries(grammar.tags)) {
    if (rule.required && !out.tags.has(name) && !out.issues.some((x) => x.tag === name && x.kind === "invalid-value")) {
      return err(issue("missing-tag", name, null, text.length, `${name}= is required`, rule.section));
    }
  }
  return ok(out);
}

/** RFC 8460 §3 and RFC 8461 §3.1 extension names: (ALPHA / DIGIT) *31(ALPHA / DIGIT / "_" / "-" / "."). */
export const EXTENSION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;

/** RFC 6376 §3.2 tag-name = ALPHA *ALNUMPUNC (ALNUMPUNC = ALPHA / DIGIT / "_"). */
export const DKIM_TAG_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** A message naming the issue and its section, for findings and errors. */
export const describeIssue = (i: TagIssue): string => `${i.message} (${i.section})`;
