// Parser for "tag=value; tag=value" lists (DKIM-style, RFC 6376 §3.2) shared by BIMI, MTA-STS and TLS-RPT records. No I/O.
import type { Result } from "../types";
import { err, ok } from "../types";

export interface TagList {
  /** Tag names in order of appearance, lower-cased. */
  order: string[];
  tags: Map<string, string>;
}

/** Duplicate tags and parts without "=" are errors; a trailing ";" is allowed (RFC 6376 §3.2). */
export function parseTagList(text: string): Result<TagList, string> {
  const order: string[] = [];
  const tags = new Map<string, string>();
  for (const raw of text.split(";")) {
    const part = raw.trim();
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0) return err(`malformed tag "${part.slice(0, 40)}"`);
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    if (!/^[a-z][a-z0-9_]*$/.test(name)) return err(`invalid tag name "${name.slice(0, 40)}"`);
    if (tags.has(name)) return err(`duplicate tag "${name}"`);
    tags.set(name, value);
    order.push(name);
  }
  return ok({ order, tags });
}
