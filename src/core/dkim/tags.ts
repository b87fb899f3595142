// The DKIM tag=value list grammar shared by signatures and key records (RFC 6376 §3.2). No I/O.
import { err, ok, type Result } from "../types";

/**
 * tag-list = tag-spec *( ";" tag-spec ) [ ";" ]; tag-spec = [FWS] tag-name [FWS] "=" [FWS] tag-value [FWS].
 * Returns tag names in order of appearance. Duplicate tags are an error (§3.2: "Tags with duplicate
 * names MUST NOT occur within a single tag-list; if a tag name does occur more than once, the entire
 * tag-list is invalid."). Values are unfolded and trimmed; internal whitespace is kept.
 */
export function parseTagList(input: string): Result<Map<string, string>> {
  const tags = new Map<string, string>();
  const parts = input.split(";");
  for (let i = 0; i < parts.length; i++) {
    const part = (parts[i] ?? "").replace(/\r\n/g, "");
    if (part.trim() === "") {
      // Only a trailing ";" (an empty last spec) is allowed by the grammar.
      if (i === parts.length - 1) continue;
      return err("empty tag-spec in tag list");
    }
    const eq = part.indexOf("=");
    if (eq < 0) return err(`tag-spec without "=": ${part.trim().slice(0, 40)}`);
    const name = part.slice(0, eq).trim();
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) return err(`invalid tag name "${name.slice(0, 40)}"`);
    if (tags.has(name)) return err(`duplicate tag "${name}"`);
    const value = part.slice(eq + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    tags.set(name, value);
  }
  return ok(tags);
}

/** Remove all FWS, for base64 values (b=, bh=, p=) which may be folded anywhere (§3.5). */
export const stripFws = (v: string): string => v.replace(/[ \t\r\n]+/g, "");
