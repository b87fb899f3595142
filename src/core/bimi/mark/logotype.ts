// The logo a mark certificate carries: the RFC 3709 logotype extension, its data: URL (RFC 2397, gzip per
// RFC 6170 §5) and its hashes. No I/O; hashes through WebCrypto, gzip through fflate.
import { AsnParser } from "@peculiar/asn1-schema";
import { id_pe_logotype, LogotypeExtn } from "@peculiar/asn1-x509-logotype";
import { Gunzip } from "fflate";
import { extensionValue, type ParsedCertificate } from "./certificate";
import { base64ToBytes, hex, sameBytes } from "./der";
import type { MarkCheck } from "./types";

/** RFC 3709 §4.1 hash algorithms by OID (RFC 3279 §2.2.1, RFC 5754 §2) to WebCrypto names. */
const HASHES: Record<string, string> = {
  "1.3.14.3.2.26": "SHA-1",
  "2.16.840.1.101.3.4.2.1": "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
};

/** Far above the 32 KB SVG Tiny PS limit; a bound so that a hostile certificate cannot inflate without end. */
const MAX_SVG_BYTES = 1024 * 1024;

export interface EmbeddedLogo {
  svg: Uint8Array | null;
  logotype: MarkCheck;
  hash: MarkCheck;
}

const LOGO_FIX = "Ask your CA to reissue the certificate with your SVG logo embedded (the logotype extension, as an image/svg+xml data: URL).";

function gunzip(data: Uint8Array): Uint8Array | null {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let failed = false;
  const g = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > MAX_SVG_BYTES) failed = true;
    else chunks.push(chunk);
  });
  try {
    g.push(data, true);
  } catch {
    return null;
  }
  if (failed) return null;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** data:[<mediatype>][;base64],<data> (RFC 2397 §3). */
function dataUrl(uri: string): { mediaType: string; bytes: Uint8Array } | null {
  if (!uri.toLowerCase().startsWith("data:")) return null;
  const comma = uri.indexOf(",");
  if (comma < 0) return null;
  const params = uri.slice(5, comma).split(";");
  const mediaType = (params[0] ?? "").trim().toLowerCase();
  const body = uri.slice(comma + 1);
  const bytes = params.some((p) => p.trim().toLowerCase() === "base64") ? base64ToBytes(body) : new TextEncoder().encode(decodeURIComponent(body));
  return bytes === null ? null : { mediaType, bytes };
}

export async function embeddedLogo(leaf: ParsedCertificate): Promise<EmbeddedLogo> {
  const cannot = (message: string): EmbeddedLogo => ({
    svg: null,
    logotype: { id: "logotype", ok: false, message, fix: LOGO_FIX },
    hash: { id: "logo-hash", ok: null, message: "No embedded logo to hash." },
  });
  const raw = extensionValue(leaf, id_pe_logotype);
  if (raw === null) return cannot("The certificate has no logotype extension (RFC 3709), so it carries no logo.");
  let ext: LogotypeExtn;
  try {
    ext = AsnParser.parse(raw, LogotypeExtn);
  } catch {
    return cannot("The logotype extension cannot be read.");
  }
  // VMC guidelines: the subject logo, given directly (LogotypeInfo "direct"), one image.
  const details = ext.subjectLogo?.direct?.image?.[0]?.imageDetails;
  if (details === undefined) return cannot("The logotype extension has no subject logo image.");
  if (details.mediaType.toLowerCase() !== "image/svg+xml") return cannot(`The embedded logo is ${details.mediaType}, not image/svg+xml.`);
  const uri = details.logotypeURI.find((u) => u.toLowerCase().startsWith("data:"));
  const data = uri === undefined ? null : dataUrl(uri);
  if (data === null) return cannot("The logo is not embedded as a data: URL.");
  // RFC 6170 §5: the SVG is gzip-compressed inside the data: URL; a plain one is read as is.
  const gz = data.bytes[0] === 0x1f && data.bytes[1] === 0x8b;
  const svg = gz ? gunzip(data.bytes) : data.bytes;
  if (svg === null) return cannot("The embedded logo cannot be decompressed (corrupt gzip data).");
  const logotype: MarkCheck = { id: "logotype", ok: true, message: `The certificate embeds an SVG logo (${svg.length} bytes${gz ? ", gzip" : ""}).` };
  return { svg, logotype, hash: await hashCheck(svg, details.logotypeHash) };
}

/**
 * RFC 3709 §4.1: logotypeHash is over the logo object; for a gzip data: URL, VMC issuers and mailauth hash the
 * decompressed SVG. Every hash with a known algorithm must match, and at least one must be known.
 */
async function hashCheck(svg: Uint8Array, hashes: { hashAlg: { algorithm: string }; hashValue: { buffer: ArrayBuffer } }[]): Promise<MarkCheck> {
  const fix = "Ask your CA to reissue the certificate: the logo it carries does not match its own hash, so receivers refuse it.";
  let known = 0;
  for (const h of hashes) {
    const name = HASHES[h.hashAlg.algorithm];
    if (name === undefined) continue;
    known++;
    const digest = await crypto.subtle.digest(name, svg);
    if (!sameBytes(digest, h.hashValue.buffer)) {
      return {
        id: "logo-hash",
        ok: false,
        message: `The embedded logo does not match its ${name} hash in the certificate (${hex(digest).slice(0, 16)}... computed).`,
        fix,
      };
    }
  }
  if (known === 0) return { id: "logo-hash", ok: null, message: "The logo hash uses an algorithm this check does not know." };
  return { id: "logo-hash", ok: true, message: `The embedded logo matches its hash${known > 1 ? "es" : ""} in the certificate.` };
}
