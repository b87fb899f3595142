// XML 1.0 (fifth edition) and 1.1 character classes over UTF-8 bytes, for the report scanner. Pure, no I/O.

/** S (XML 1.0 §2.3 [3]): space, tab, line feed, carriage return. */
export const isS = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d;

/** NameStartChar (XML 1.0 §2.3 [4]), code points; ":" included as the production has it. */
export function isNameStart(c: number): boolean {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a;
  return (
    (c >= 0xc0 && c <= 0xd6) ||
    (c >= 0xd8 && c <= 0xf6) ||
    (c >= 0xf8 && c <= 0x2ff) ||
    (c >= 0x370 && c <= 0x37d) ||
    (c >= 0x37f && c <= 0x1fff) ||
    c === 0x200c ||
    c === 0x200d ||
    (c >= 0x2070 && c <= 0x218f) ||
    (c >= 0x2c00 && c <= 0x2fef) ||
    (c >= 0x3001 && c <= 0xd7ff) ||
    (c >= 0xf900 && c <= 0xfdcf) ||
    (c >= 0xfdf0 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0xeffff)
  );
}

/** NameChar (XML 1.0 §2.3 [4a]). */
export function isNameChar(c: number): boolean {
  if (c < 0x80) return isNameStart(c) || c === 0x2d || c === 0x2e || (c >= 0x30 && c <= 0x39);
  return isNameStart(c) || c === 0xb7 || (c >= 0x300 && c <= 0x36f) || c === 0x203f || c === 0x2040;
}

/** Char (XML 1.0 §2.2 [2]; XML 1.1 §2.2 [2] also allows C0 controls, as character references only). */
export function isCharRef(c: number, xml11: boolean): boolean {
  if (c >= 0x20 && c <= 0xd7ff) return true;
  if (c === 0x09 || c === 0x0a || c === 0x0d) return true;
  if (xml11 && c >= 0x01 && c < 0x20) return true;
  return (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/**
 * Decodes the UTF-8 sequence starting at `i` (a byte ≥ 0x80) as the WHATWG decoder does in fatal
 * mode (no overlongs, no surrogates, nothing past U+10FFFF). Returns the code point and its length
 * packed as `cp * 8 + len`, NEED (-1) when the sequence runs past `end`, BAD (-2) when malformed.
 */
export const NEED = -1;
export const BAD = -2;
export function utf8At(buf: Uint8Array, i: number, end: number): number {
  const b0 = buf[i] as number;
  let len: number;
  let cp: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    len = 2;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    len = 3;
    cp = b0 & 0x0f;
    if (b0 === 0xe0) lo = 0xa0;
    else if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    len = 4;
    cp = b0 & 0x07;
    if (b0 === 0xf0) lo = 0x90;
    else if (b0 === 0xf4) hi = 0x8f;
  } else return BAD;
  for (let k = 1; k < len; k++) {
    if (i + k >= end) return NEED;
    const b = buf[i + k] as number;
    if (b < lo || b > hi) return BAD;
    lo = 0x80;
    hi = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
  }
  return cp * 8 + len;
}

/**
 * Whether a decoded non-ASCII code point may appear literally (XML 1.0 §2.2: not U+FFFE/U+FFFF;
 * XML 1.1 §2.2 also restricts the C1 controls other than NEL).
 */
export function literalOk(cp: number, xml11: boolean): boolean {
  if (cp === 0xfffe || cp === 0xffff) return false;
  return !(xml11 && cp >= 0x7f && cp <= 0x9f && cp !== 0x85);
}

/** UTF-16 code units of a code point: the unit the size caps count in (JavaScript string length). */
export const units = (cp: number): number => (cp >= 0x10000 ? 2 : 1);
