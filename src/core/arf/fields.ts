// The field block of a message/feedback-report part (RFC 5965 §3: "Name: value" lines in the RFC 5322
// header syntax, folded lines continued by white space). Pure; no I/O.

/** Lines read from one feedback part; a report with more is refused (RFC 5965 §3 defines about 20 fields). */
export const MAX_FIELD_LINES = 200;
/** Characters kept of one field value; the rest is cut (docs/limits.md). */
export const MAX_VALUE_CHARS = 1024;

const NAME = /^[A-Za-z0-9-]{1,64}$/;

/** Every field by lower-case name, values in order; null when the block has more than MAX_FIELD_LINES lines. */
export function readFields(text: string): Map<string, string[]> | null {
  const lines = text.split(/\r?\n/);
  // The block ends at the first empty line: anything after it is not a field (RFC 5322 §2.1).
  const end = lines.findIndex((l) => l.trim() === "");
  const block = end === -1 ? lines : lines.slice(0, end);
  if (block.length > MAX_FIELD_LINES) return null;
  const out = new Map<string, string[]>();
  let last: string[] | null = null;
  for (const line of block) {
    if (/^[ \t]/.test(line) && last !== null) {
      // Unfolding (RFC 5322 §2.2.3): a continuation line joins the value before it.
      const i = last.length - 1;
      last[i] = clean(`${last[i] ?? ""} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!NAME.test(name)) {
      last = null;
      continue;
    }
    const key = name.toLowerCase();
    const values = out.get(key) ?? [];
    values.push(clean(line.slice(colon + 1)));
    out.set(key, values);
    last = values;
  }
  return out;
}

/** Control characters become spaces, runs of white space one space, and the value is cut to MAX_VALUE_CHARS. */
export const clean = (v: string): string =>
  v
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s{2,}/g, " ")
    .trim()
    .slice(0, MAX_VALUE_CHARS);

export const first = (fields: Map<string, string[]>, name: string): string | null => {
  const v = fields.get(name)?.[0];
  return v === undefined || v === "" ? null : v;
};
