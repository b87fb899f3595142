// Splits a raw RFC 5322 message into header fields and body, and extracts the From domain. No I/O.
import { bytesToBinary, utf8 } from "./bytes";
import { hasLf, wordView } from "./words";

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
  /** The body octets after CRLF normalization (a view into the message, not a copy). */
  bodyBytes: Uint8Array;
  /** The body as text (a binary string for byte input), decoded on first use; verification never needs it. */
  readonly body: string;
  /** True when bare LF line ends were rewritten to CRLF (see normalizeLineEndings). */
  normalized: boolean;
  /** Header lines that were neither a field nor a continuation (ignored). */
  malformed: number;
  /** The input was bytes, carried as a binary string; encode with encodeText(s, true). */
  binary: boolean;
}

const CR = 13;
const LF = 10;

/**
 * DKIM is computed over the SMTP wire form, where every line ends in CRLF (RFC 5322 §2.1,
 * RFC 6376 §5.3 "convert to the SMTP-native form"). Messages stored on Unix or pasted into a
 * form often use bare LF, so any bare LF is rewritten to CRLF before anything else. A message
 * that already uses CRLF throughout is returned unchanged (a scan of its LFs, no copy).
 */
export function normalizeLineEndings(raw: Uint8Array): { bytes: Uint8Array; normalized: boolean } {
  const bare = countBareLf(raw);
  if (bare === 0) return { bytes: raw, normalized: false };
  const out = new Uint8Array(raw.length + bare);
  let o = 0;
  let from = 0;
  for (let i = raw.indexOf(LF); i >= 0; i = raw.indexOf(LF, i + 1)) {
    if (i !== 0 && raw[i - 1] === CR) continue;
    out.set(raw.subarray(from, i), o);
    o += i - from;
    out[o++] = CR;
    from = i; // the LF itself is copied with the next span
  }
  out.set(raw.subarray(from), o);
  return { bytes: out, normalized: true };
}

/**
 * The message as the octets DKIM hashes: encoded once (UTF-8 for text, how it was received) and
 * CRLF-normalized. Callers that need the size (a limit) before verifying make this once and pass it
 * on, so the message is never encoded twice (docs/decisions.md D53).
 */
export interface WireMessage {
  kind: "wire";
  /** CRLF-normalized octets. */
  bytes: Uint8Array;
  /** Octets as given, before normalization (what a size limit counts). */
  size: number;
  normalized: boolean;
  /** The input was bytes (see ParsedMessage.binary). */
  binary: boolean;
}

export function toWire(input: string | Uint8Array): WireMessage {
  if (typeof input !== "string") {
    const { bytes, normalized } = normalizeLineEndings(input);
    return { kind: "wire", bytes, size: input.length, normalized, binary: true };
  }
  // Text is checked for bare LFs before encoding: the engine's string search is several times
  // faster than any octet loop, and a normalized message (the usual case) is then encoded as is.
  // CR and LF are single octets in UTF-8 and never occur inside a multi-octet sequence, so this is
  // the same rewrite normalizeLineEndings makes on the octets.
  const bare = countBareLfText(input);
  const bytes = utf8(bare === 0 ? input : input.replace(/(?<!\r)\n/g, "\r\n"));
  return { kind: "wire", bytes, size: bytes.length - bare, normalized: bare > 0, binary: false };
}

function countBareLfText(s: string): number {
  let bare = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) if (i === 0 || s.charCodeAt(i - 1) !== CR) bare++;
  return bare;
}

/** LFs not preceded by CR; words without an LF are skipped four octets at a time (words.ts). */
function countBareLf(b: Uint8Array): number {
  const view = wordView(b);
  const n = b.length;
  let bare = 0;
  let i = 0;
  if (view !== null) {
    const { words, start } = view;
    for (; i < start; i++) if (b[i] === LF && (i === 0 || b[i - 1] !== CR)) bare++;
    for (let w = 0; w < words.length; w++) {
      if (!hasLf(words[w] as number)) continue;
      const at = start + w * 4;
      for (let k = at; k < at + 4; k++) if (b[k] === LF && (k === 0 || b[k - 1] !== CR)) bare++;
    }
    i = view.end;
  }
  for (; i < n; i++) if (b[i] === LF && (i === 0 || b[i - 1] !== CR)) bare++;
  return bare;
}

/** Offset of the first CRLF CRLF (the end of the header block), or -1. */
function headerEnd(b: Uint8Array): number {
  for (let i = b.indexOf(LF); i >= 0; i = b.indexOf(LF, i + 1)) {
    if (i >= 3 && b[i - 1] === CR && b[i - 2] === LF && b[i - 3] === CR) return i - 3;
  }
  return -1;
}

const UTF8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Accepts the message as text (encoded as UTF-8, how the octets were received) or, preferably, as
 * the raw octets. Everything is located on the octets; only the header block becomes text.
 */
export function parseMessage(input: string | Uint8Array | WireMessage): ParsedMessage {
  const { bytes, normalized, binary } = typeof input === "object" && "kind" in input ? input : toWire(input);
  let split: number;
  let bodyStart: number;
  if (bytes[0] === CR && bytes[1] === LF) {
    split = 0;
    bodyStart = 2;
  } else {
    const sep = headerEnd(bytes);
    // No empty line: the whole message is header (RFC 5322 §2.1: the body is optional).
    split = sep < 0 ? bytes.length : sep;
    bodyStart = sep < 0 ? bytes.length : sep + 4;
  }
  const decode = (b: Uint8Array) => (binary ? bytesToBinary(b) : UTF8.decode(b));
  const headerBlock = decode(bytes.subarray(0, split));
  const bodyBytes = bytes.subarray(bodyStart);
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
  let body: string | null = null;
  return {
    headers,
    bodyBytes,
    get body() {
      body ??= decode(bodyBytes);
      return body;
    },
    normalized,
    malformed,
    binary,
  };
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
