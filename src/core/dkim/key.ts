// Analyzes a DKIM public key record: type, RSA modulus bits from the DER, fingerprint, findings. No I/O.
import type { Finding } from "../types";
import { parsePublicKeyDer } from "./asn1";
import { base64Decode, sha256Hex } from "./bytes";
import { parseKeyRecord, type KeyRecord } from "./key-record";

/** Key material ready for WebCrypto import: SPKI for RSA, the raw 32 bytes for Ed25519. */
export type KeyMaterial = { type: "rsa"; spki: Uint8Array; bits: number } | { type: "ed25519"; raw: Uint8Array };

export interface KeyAnalysis {
  type: "rsa" | "ed25519";
  /** RSA modulus length from the ASN.1 INTEGER; 256 for Ed25519; null when undecodable or revoked. */
  bits: number | null;
  /** docs/decisions.md D18: SHA-256 of the base64-decoded p= bytes, lower-case hex; null when revoked/undecodable. */
  fingerprint: string | null;
  testing: boolean;
  revoked: boolean;
  /** A verifier could use this key (decodable, type matches, RSA ≥1024 per RFC 8301 §3.2). */
  usable: boolean;
  findings: Finding[];
  material: KeyMaterial | null;
}

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null): Finding => ({ rule, severity, description, fix });

export async function analyzeKey(input: string | KeyRecord): Promise<KeyAnalysis | { error: string }> {
  let rec: KeyRecord;
  if (typeof input === "string") {
    const parsed = parseKeyRecord(input);
    if (!parsed.ok) return { error: parsed.error };
    rec = parsed.value;
  } else rec = input;

  const findings: Finding[] = [];
  const out: KeyAnalysis = {
    type: rec.keyType,
    bits: null,
    fingerprint: null,
    testing: rec.testing,
    revoked: rec.revoked,
    usable: false,
    findings,
    material: null,
  };
  if (rec.testing)
    findings.push(
      f(
        "dkim.key.testing",
        "Low",
        "The key record has t=y (testing): verifiers must treat signed mail like unsigned mail (RFC 6376 §3.6.1).",
        "Remove t=y from the key record once signing works.",
      ),
    );
  if (rec.hashes !== null && !rec.hashes.includes("sha256")) {
    findings.push(
      f(
        "dkim.key.sha1_only",
        "High",
        `The key allows only h=${rec.hashes.join(":")}; rsa-sha1 must not be used (RFC 8301 §3.1).`,
        "Remove the h= tag or set h=sha256.",
      ),
    );
  }
  if (!rec.services.includes("*") && !rec.services.includes("email")) {
    findings.push(f("dkim.key.not_email", "High", `The key's s=${rec.services.join(":")} excludes email (RFC 6376 §3.6.1).`, "Remove the s= tag."));
  }
  if (rec.revoked) {
    // An empty p= is a legitimate end state of a rotation, not an error (docs/decisions.md D18).
    findings.push(f("dkim.key.revoked", "Info", "The key is revoked (empty p=).", null));
    return out;
  }
  const bytes = base64Decode(rec.publicKey);
  if (bytes === null || bytes.length === 0) {
    findings.push(f("dkim.key.malformed", "High", "p= is not valid base64.", "Republish the public key exactly as the signer generated it."));
    return out;
  }
  out.fingerprint = await sha256Hex(bytes);
  const der = parsePublicKeyDer(bytes);
  if (rec.keyType === "ed25519") {
    if (bytes.length === 32) {
      out.bits = 256;
      out.material = { type: "ed25519", raw: bytes };
      out.usable = true;
    } else if (der?.kind === "ed25519-spki") {
      findings.push(
        f(
          "dkim.key.malformed",
          "High",
          "p= holds an Ed25519 key wrapped in SubjectPublicKeyInfo; RFC 8463 §4.2 requires the raw 32-byte key.",
          "Publish only the raw 32-byte public key, base64-encoded.",
        ),
      );
    } else if (der !== null) {
      findings.push(f("dkim.key.type_mismatch", "High", "k=ed25519 but p= holds an RSA key.", "Set k=rsa or publish the Ed25519 key."));
    } else {
      findings.push(f("dkim.key.malformed", "High", `p= decodes to ${bytes.length} bytes, not a 32-byte Ed25519 key (RFC 8463 §4.2).`, null));
    }
    return out;
  }
  if (der === null || der.kind === "ed25519-spki") {
    const mismatch = bytes.length === 32 || der?.kind === "ed25519-spki";
    findings.push(
      mismatch
        ? f("dkim.key.type_mismatch", "High", "The record says k=rsa (the default) but p= holds an Ed25519 key.", "Add k=ed25519 to the key record.")
        : f("dkim.key.malformed", "High", "p= is not a DER RSA public key.", "Republish the public key exactly as the signer generated it."),
    );
    return out;
  }
  out.bits = der.bits;
  out.material = { type: "rsa", spki: der.spki, bits: der.bits };
  if (der.bits < 1024) {
    findings.push(
      f(
        "dkim.key.too_small",
        "Critical",
        `The RSA key has ${der.bits} bits; verifiers must not accept keys under 1024 bits (RFC 8301 §3.2).`,
        "Generate a 2048-bit key and publish it under a new selector.",
      ),
    );
  } else {
    out.usable = true;
    if (der.bits < 2048)
      findings.push(
        f(
          "dkim.key.weak",
          "Medium",
          `The RSA key has ${der.bits} bits; signers should use at least 2048 (RFC 8301 §3.2).`,
          "Rotate to a 2048-bit key under a new selector.",
        ),
      );
  }
  return out;
}

export type AgeBucket = "under_6_months" | "over_6_months" | "over_2_years";

/** docs/decisions.md D18: under 180 days, under 730, otherwise over two years. */
export function ageBucket(days: number): AgeBucket {
  if (days < 180) return "under_6_months";
  if (days < 730) return "over_6_months";
  return "over_2_years";
}

/** Rotation threshold for `dkim.key.stale` (docs/decisions.md D18). */
export const STALE_KEY_DAYS = 180;
