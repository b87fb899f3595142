// Splits a raw RFC 5322 message into header fields and body, and extracts the From domain. No I/O.
import { bytesToBinary } from "./bytes";

export interface HeaderField {
  /** Field name as written (without trailing WSP before the colon). */
  name: string;
  /** Lower-cased name for matching (header names are case-insensitive, RFC 5322 §1.2.2). */
  key: string;
  /** The whole field as it appeared, folding CRLFs included, without the final CRLF. */
  raw: string;
  /** Everything after the first colon, folding kept (raw), for canonicalization. */
  value: string;
}

export interface ParsedMessage {
  headers: HeaderField[];
  body: string;
  /** True when bare LF line ends were rewritten to CRLF (see normalizeLineEndings). */
  normalized: boolean;
  /** Header lines that were neither a field nor a continuation (ignored). */
  malformed: number;
  /** The input was bytes, carried as a binary string; encode with encodeText(s, true). */
  binary: boolean;
}

/**
 * DKIM is computed over the SMTP wire form, where every line ends in CRLF (RFC 5322 §2.1,
 * RFC 6376 §5.3 "convert to the SMTP-native form"). Messages stored on Unix or pasted into a
 * form often use bare LF, so any bare LF is rewritten to CRLF before anything else. A message
 * that already uses CRLF throughout is returned unchanged (a fast check, no copy).
 */
export function normalizeLineEndings(raw: string): { text: string; normalized: boolean } {
  if (!/(^|[^\r])\n/.test(raw)) return { text: raw, normalized: false };
  return { text: raw.replace(/\r?\n/g, "\r\n"), normalized: true };
}

/** Accepts the message as text (encoded back as UTF-8) or, preferably, as the raw octets. */
export function parseMessage(input: string | Uint8Array): ParsedMessage {
  const binary = typeof input !== "string";
  const { text, normalized } = normalizeLineEndings(binary ? bytesToBinary(input) : input);
  let headerBlock: string;
  let body: string;
  if (text.startsWith("\r\n")) {
    headerBlock = "";
    body = text.slice(2);
  } else {
    const sep = text.indexOf("\r\n\r\n");
    // No empty line: the whole message is header (RFC 5322 §2.1: the body is optional).
    headerBlock = sep < 0 ? text : text.slice(0, sep);
    body = sep < 0 ? "" : text.slice(sep + 4);
  }
  const headers: HeaderField[] = [];
  let malformed = 0;
  const lines = headerBlock === "" ? [] : headerBlock.split("\r\n");
  let current: string | null = null;
  const flush = () => {
    if (current === null) return;
    const colon = current.indexOf(":");
    const name = current.slice(0, colon).replace(/[ \t]+$/, "");
    if (colon <= 0 || name === "" || /[\s]/.test(name)) malformed++;
    else headers.push({ name, key: name.toLowerCase(), raw: current, value: current.slice(colon + 1) });
    current = null;
  };
  for (const line of lines) {
    if ((line.startsWith(" ") || line.startsWith("\t")) && current !== null) {
      current += `\r\n${line}`; // folded continuation (RFC 5322 §2.2.3)
    } else {
      flush();
      current = line;
    }
  }
  flush();
  return { headers, body, normalized, malformed, binary };
}

export type FromDomain = { domain: string; reason: null } | { domain: null; reason: string };

/**
 * The RFC5322.From domain as DMARC uses it (RFC 7489 §6.6.1): exactly one From field with exactly
 * one address; otherwise null with the reason (several From fields or addresses are ambiguous).
 */
export function extractFromDomain(headers: HeaderField[]): FromDomain {
  const froms = headers.filter((h) => h.key === "from");
  if (froms.length === 0) return { domain: null, reason: "no From header" };
  if (froms.length > 1) return { domain: null, reason: `${froms.length} From headers` };
  const value = stripComments((froms[0]?.value ?? "").replace(/\r\n/g, ""));
  const addrs = splitAddresses(value);
  if (addrs.length !== 1) return { domain: null, reason: addrs.length === 0 ? "no address in From" : `${addrs.length} addresses in From` };
  const addr = addrs[0] ?? "";
  const angle = /<([^>]*)>/.exec(addr);
  const spec = (angle ? (angle[1] ?? "") : addr).trim();
  const at = spec.lastIndexOf("@");
  if (at < 0) return { domain: null, reason: "From address has no domain" };
  const domain = spec
    .slice(at + 1)
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(domain) && !/^[^\s.]+(\.[^\s.]+)+$/u.test(domain)) {
    return { domain: null, reason: `invalid From domain "${domain}"` };
  }
  return { domain, reason: null };
}

/** Remove RFC 5322 comments (nested parentheses), ignoring those inside quoted strings. */
function stripComments(s: string): string {
  let out = "";
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] ?? "";
    // A quoted-pair is kept inside quoted strings and dropped inside comments.
    if (ch === "\\") {
      if (depth === 0) out += ch + (s[i + 1] ?? "");
      i++;
      continue;
    }
    if (depth === 0 && ch === '"') quoted = !quoted;
    if (!quoted && ch === "(") {
      depth++;
      continue;
    }
    if (!quoted && ch === ")" && depth > 0) {
      depth--;
      continue;
    }
    if (depth === 0) out += ch;
  }
  return out;
}

/** Split an address list on top-level commas (outside quotes and angle brackets); groups are flattened. */
function splitAddresses(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  let angle = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] ?? "";
    if (ch === "\\" && quoted) {
      cur += ch + (s[i + 1] ?? "");
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === "<") angle = true;
    else if (!quoted && ch === ">") angle = false;
    if (!quoted && !angle && (ch === "," || ch === ":" || ch === ";")) {
      // A group "name: a, b;" — the display name before ":" is not an address.
      if (ch !== ":" && cur.trim() !== "") out.push(cur);
      cur = "";
      continue;
    }
    cur += ch;
  }
  if (cur.trim() !== "") out.push(cur);
  return out.filter((a) => a.includes("@") || a.includes("<"));
}
