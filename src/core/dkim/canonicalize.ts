// DKIM header and body canonicalization (RFC 6376 §3.4) and the signed header data (§3.7, §5.4). No I/O.
import { canonBodyOctets } from "./body-canon";
import { encodeText } from "./bytes";
import type { Canon } from "./signature";
import type { HeaderField } from "./message";

// Header functions work on the (small) header strings. canonBody is the string form of the body
// rules, kept as the readable reference; verification and signing use the octet form in
// body-canon.ts, which the tests check against it.

/** §3.4.1 simple: the field exactly as it appeared, with its CRLF. */
export const canonHeaderSimple = (h: HeaderField): string => `${h.raw}\r\n`;

/**
 * §3.4.2 relaxed: lower-case the name, unfold, reduce WSP runs to one SP, delete WSP at the end of
 * the value and around the colon.
 */
export function canonHeaderRelaxed(h: HeaderField): string {
  const value = h.value
    .replace(/\r\n/g, "")
    .replace(/[ \t]+/g, " ")
    .replace(/^ | $/g, "");
  return `${h.name.toLowerCase()}:${value}\r\n`;
}

export const canonHeader = (h: HeaderField, c: Canon): string => (c === "simple" ? canonHeaderSimple(h) : canonHeaderRelaxed(h));

/**
 * §3.4.3 simple body: remove all empty lines at the end; an empty body becomes one CRLF.
 * §3.4.4 relaxed body: reduce WSP runs to one SP, delete WSP at line ends, remove trailing empty
 * lines; an empty body stays empty, and a missing final CRLF is added.
 * Input must already be CRLF-normalized (message.ts).
 */
export function canonBody(body: string, c: Canon): string {
  let s = body;
  if (c === "relaxed") s = s.replace(/[ \t]+/g, " ").replace(/ (?=\r\n|$)/g, "");
  let end = s.length;
  while (end >= 2 && s.charCodeAt(end - 1) === 10 && s.charCodeAt(end - 2) === 13) end -= 2;
  if (end === 0) return c === "simple" ? "\r\n" : "";
  return `${end === s.length ? s : s.slice(0, end)}\r\n`;
}

/** The canonical body as octets, cut to l= when present (§3.4.5). `available` is the full length. */
export function canonBodyBytes(body: string, c: Canon, limit: number | null, binary = false): { bytes: Uint8Array; available: number } {
  const bytes = canonBodyOctets(encodeText(body, binary), c);
  if (limit === null || limit >= bytes.length) return { bytes, available: bytes.length };
  return { bytes: bytes.subarray(0, limit), available: bytes.length };
}

/**
 * Pick the header fields named in h= (§5.4.2): for each name, the last instance not yet used,
 * scanning bottom-up; a name with no remaining instance (over-signing) contributes nothing.
 */
export function selectHeaders(headers: HeaderField[], names: string[]): HeaderField[] {
  const used = new Map<string, number>(); // key -> how many instances consumed from the bottom
  const out: HeaderField[] = [];
  for (const n of names) {
    const key = n.toLowerCase();
    let skip = used.get(key) ?? 0;
    used.set(key, skip + 1);
    for (let i = headers.length - 1; i >= 0; i--) {
      const h = headers[i];
      if (h === undefined || h.key !== key) continue;
      if (skip === 0) {
        out.push(h);
        break;
      }
      skip--;
    }
  }
  return out;
}

/**
 * The DKIM-Signature field with the b= value emptied (§3.5 b=: "deleted (i.e., treated as the empty
 * string)"). Only the tag whose name is exactly "b" is touched; a positional split on ";" avoids
 * the trap of a "b=" inside a base64 bh= value.
 */
export function withEmptyB(h: HeaderField): HeaderField {
  const parts = h.value.split(";");
  const idx = parts.findIndex((p) => /^[ \t\r\n]*b[ \t\r\n]*=/.test(p));
  if (idx < 0) return h;
  parts[idx] = (/^[ \t\r\n]*b[ \t\r\n]*=/.exec(parts[idx] ?? "") ?? [""])[0];
  const value = parts.join(";");
  return { ...h, value, raw: h.raw.slice(0, h.raw.length - h.value.length) + value };
}

/**
 * The data hashed for the header signature (§3.7): the selected headers canonicalized, then the
 * DKIM-Signature field itself with b= empty, canonicalized, without its trailing CRLF.
 */
export function signedHeaderData(headers: HeaderField[], names: string[], sigField: HeaderField, c: Canon): string {
  // The field being verified did not exist when it was signed, so h=dkim-signature can never select it.
  const parts = selectHeaders(
    headers.filter((h) => h !== sigField),
    names,
  ).map((h) => canonHeader(h, c));
  parts.push(canonHeader(withEmptyB(sigField), c).slice(0, -2));
  return parts.join("");
}
