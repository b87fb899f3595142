// RSASSA-PSS signatures on certificates (RFC 4055 §3.1, RFC 8017 §9.1): the parameters carried in the
// signatureAlgorithm, read by hand from their DER (a small SEQUENCE of optional tagged fields). No I/O.
import { derChildren, derElement, oidFromDer } from "./der";

/** id-RSASSA-PSS (RFC 4055 §3.1), both as a signature algorithm and as a key algorithm. */
export const RSASSA_PSS = "1.2.840.113549.1.1.10";
const MGF1 = "1.2.840.113549.1.1.8";

/** RFC 4055 §2.1 / RFC 5754 §2 hash OIDs to WebCrypto names. */
const HASHES: Record<string, string> = {
  "1.3.14.3.2.26": "SHA-1",
  "2.16.840.1.101.3.4.2.1": "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
};

/** ok false: malformed (the signature is bad); ok null: well-formed but beyond what WebCrypto verifies. */
export type PssParams = { ok: true; hash: string; saltLength: number } | { ok: false | null; reason: string };

/** The hash named by the AlgorithmIdentifier (RFC 5280 §4.1.1.2) at offset `at`. */
function hashOf(bytes: Uint8Array, at: number): string | null {
  const seq = derElement(bytes, at);
  const kids = seq === null || bytes[at] !== 0x30 ? null : derChildren(bytes, seq);
  const oid = kids?.[0] === undefined ? null : oidFromDer(bytes.subarray(kids[0].start, kids[0].end));
  return oid === null ? null : (HASHES[oid] ?? null);
}

/**
 * RSASSA-PSS-params (RFC 4055 §3.1): hashAlgorithm [0] DEFAULT sha1, maskGenAlgorithm [1] DEFAULT
 * mgf1SHA1, saltLength [2] DEFAULT 20, trailerField [3] DEFAULT 1. WebCrypto's RSA-PSS (W3C WebCrypto
 * §22) uses MGF1 with the message hash and trailer 0xBC only, so anything else cannot be checked here.
 */
export function pssParams(der: ArrayBuffer | null | undefined): PssParams {
  let hash = "SHA-1";
  let mgfHash = "SHA-1";
  let saltLength = 20;
  const bytes = der ? new Uint8Array(der) : new Uint8Array(0);
  // Absent parameters are not allowed for a signature (RFC 4055 §3.1: "MUST be present"), but an empty
  // SEQUENCE means every default.
  const seq = derElement(bytes, 0);
  const fields = seq === null || bytes[0] !== 0x30 ? null : derChildren(bytes, seq);
  if (fields === null) return { ok: false, reason: "the RSASSA-PSS parameters cannot be read" };
  for (const f of fields) {
    const tag = bytes[f.start];
    if (tag === 0xa0) {
      const h = hashOf(bytes, f.body);
      if (h === null) return { ok: null, reason: "the RSASSA-PSS hash is not one this check knows" };
      hash = h;
    } else if (tag === 0xa1) {
      const mgf = derElement(bytes, f.body);
      const kids = mgf === null ? null : derChildren(bytes, mgf);
      const oid = kids?.[0] === undefined ? null : oidFromDer(bytes.subarray(kids[0].start, kids[0].end));
      const h = kids?.[1] === undefined ? null : hashOf(bytes, kids[1].start);
      if (oid !== MGF1 || h === null) return { ok: false, reason: "the RSASSA-PSS mask generation is not MGF1" };
      mgfHash = h;
    } else if (tag === 0xa2) {
      const n = derElement(bytes, f.body);
      if (n === null || bytes[f.body] !== 0x02 || n.end - n.body > 4) return { ok: false, reason: "the RSASSA-PSS salt length cannot be read" };
      saltLength = 0;
      for (let i = n.body; i < n.end; i++) saltLength = saltLength * 256 + (bytes[i] ?? 0);
    } else if (tag === 0xa3) {
      const n = derElement(bytes, f.body);
      if (n === null || n.end - n.body !== 1 || bytes[n.body] !== 1) return { ok: false, reason: "the RSASSA-PSS trailer field is not 1" };
    } else return { ok: false, reason: "the RSASSA-PSS parameters carry an unknown field" };
  }
  if (mgfHash !== hash) return { ok: null, reason: "RSASSA-PSS with MGF1 over a different hash than the signature's is not supported here" };
  return { ok: true, hash, saltLength };
}
