// Detects a report's container format from its first bytes (magic numbers). Pure, no I/O.

export type ReportFormat = "gzip" | "zip" | "xml" | "unknown";

/** How many leading bytes `detectFormat` wants to see before deciding (it never needs more). */
export const SNIFF_BYTES = 512;

const isXmlSpace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * gzip: 1f 8b (RFC 1952 §2.3.1). zip: "PK\x03\x04" (local file header) or "PK\x05\x06" (an empty
 * archive, which then fails as "no file"). XML: an optional UTF-8 BOM, XML whitespace, then "<"; or
 * a UTF-16 byte order mark (XML 1.0 Appendix F), decoded as such by encoding.ts.
 */
export function detectFormat(head: Uint8Array): ReportFormat {
  const [b0, b1, b2, b3] = head;
  if (b0 === 0x1f && b1 === 0x8b) return "gzip";
  if (b0 === 0x50 && b1 === 0x4b && ((b2 === 0x03 && b3 === 0x04) || (b2 === 0x05 && b3 === 0x06))) {
    return "zip";
  }
  return looksLikeXml(head) ? "xml" : "unknown";
}

/** True when the bytes start (after a UTF-8 BOM and whitespace) with "<". */
export function looksLikeXml(head: Uint8Array): boolean {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return true;
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && isXmlSpace(head[i] ?? 0)) i++;
  return head[i] === 0x3c;
}

/** True when the bytes hold a nested archive (gzip or zip), which a report archive must not. */
export function looksLikeArchive(head: Uint8Array): boolean {
  const f = detectFormat(head);
  return f === "gzip" || f === "zip";
}
