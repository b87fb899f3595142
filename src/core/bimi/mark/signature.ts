// Certificate signature verification with WebCrypto (crypto.subtle): RSA PKCS#1 v1.5, RSASSA-PSS and ECDSA,
// the algorithms of RFC 4055/RFC 5758 that mark-certificate issuers use. No I/O.
import type { ParsedCertificate } from "./certificate";
import { derChildren, derElement, oidFromDer } from "./der";
import { pssParams, RSASSA_PSS } from "./pss";

type Verified = { ok: true } | { ok: false; reason: string } | { ok: null; reason: string };

/** RFC 8017 §A.2.4 / RFC 4055 §5 and RFC 5758 §3.2: signatureAlgorithm OIDs to WebCrypto. */
const ALGORITHMS: Record<string, { kind: "RSA" | "EC"; hash: string }> = {
  "1.2.840.113549.1.1.5": { kind: "RSA", hash: "SHA-1" },
  "1.2.840.113549.1.1.11": { kind: "RSA", hash: "SHA-256" },
  "1.2.840.113549.1.1.12": { kind: "RSA", hash: "SHA-384" },
  "1.2.840.113549.1.1.13": { kind: "RSA", hash: "SHA-512" },
  "1.2.840.10045.4.3.2": { kind: "EC", hash: "SHA-256" },
  "1.2.840.10045.4.3.3": { kind: "EC", hash: "SHA-384" },
  "1.2.840.10045.4.3.4": { kind: "EC", hash: "SHA-512" },
};

/** RFC 5480 §2.1.1.1 named curves, with their field size in bytes. */
const CURVES: Record<string, { name: string; size: number }> = {
  "1.2.840.10045.3.1.7": { name: "P-256", size: 32 },
  "1.3.132.0.34": { name: "P-384", size: 48 },
  "1.3.132.0.35": { name: "P-521", size: 66 },
};

const RSA_KEY = "1.2.840.113549.1.1.1";
/** AlgorithmIdentifier { rsaEncryption, NULL } (RFC 3279 §2.3.1), DER. */
const RSA_KEY_ALG = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
const EC_KEY = "1.2.840.10045.2.1";

/** ECDSA-Sig-Value (RFC 5480 §2.2 / RFC 3279 §2.2.3) to the r||s form WebCrypto verifies. */
function ecdsaRaw(sig: Uint8Array, size: number): Uint8Array | null {
  const seq = derElement(sig, 0);
  if (seq === null) return null;
  const parts = derChildren(sig, seq);
  if (parts === null || parts.length !== 2) return null;
  const out = new Uint8Array(size * 2);
  for (const [i, p] of parts.entries()) {
    let n = sig.subarray(p.body, p.end);
    while (n.length > size && n[0] === 0) n = n.subarray(1);
    if (n.length > size) return null;
    out.set(n, i * size + (size - n.length));
  }
  return out;
}

/** Was `child` signed by the key of `issuer`? null: the algorithm is one this check does not know. */
export async function verifySignature(child: ParsedCertificate, issuer: ParsedCertificate): Promise<Verified> {
  const sigOid = child.cert.signatureAlgorithm.algorithm;
  if (sigOid === RSASSA_PSS) return verifyPss(child, issuer);
  const alg = ALGORITHMS[sigOid];
  if (alg === undefined) return { ok: null, reason: `signature algorithm ${sigOid} is not supported here` };
  const keyAlg = issuer.cert.tbsCertificate.subjectPublicKeyInfo.algorithm;
  const signature = new Uint8Array(child.cert.signatureValue);
  try {
    if (alg.kind === "RSA") {
      if (keyAlg.algorithm !== RSA_KEY) return { ok: false, reason: "the issuer's key is not an RSA key" };
      const params = { name: "RSASSA-PKCS1-v1_5", hash: alg.hash };
      const key = await crypto.subtle.importKey("spki", issuer.spkiDer, params, false, ["verify"]);
      const ok = await crypto.subtle.verify(params, key, signature, child.tbs);
      return ok ? { ok: true } : { ok: false, reason: "the signature does not verify" };
    }
    if (keyAlg.algorithm !== EC_KEY || !keyAlg.parameters) return { ok: false, reason: "the issuer's key is not an EC key" };
    const curve = CURVES[oidFromDer(new Uint8Array(keyAlg.parameters)) ?? ""];
    if (curve === undefined) return { ok: null, reason: "the issuer's elliptic curve is not supported here" };
    const key = await crypto.subtle.importKey("spki", issuer.spkiDer, { name: "ECDSA", namedCurve: curve.name }, false, ["verify"]);
    const raw = ecdsaRaw(signature, curve.size);
    if (raw === null) return { ok: false, reason: "the ECDSA signature is malformed" };
    const ok = await crypto.subtle.verify({ name: "ECDSA", hash: alg.hash }, key, raw, child.tbs);
    return ok ? { ok: true } : { ok: false, reason: "the signature does not verify" };
  } catch (e) {
    return { ok: false, reason: `the issuer's key could not be used (${e instanceof Error ? e.message : String(e)})` };
  }
}

const derLength = (n: number) => (n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff]);

/**
 * The issuer's key as an rsaEncryption SPKI. An RSA key may also be labelled id-RSASSA-PSS (RFC 4055 §1.2),
 * which WebCrypto's spki import does not take; the key itself (RSAPublicKey) is the same either way.
 */
function rsaSpki(issuer: ParsedCertificate): Uint8Array | null {
  const info = issuer.cert.tbsCertificate.subjectPublicKeyInfo;
  if (info.algorithm.algorithm === RSA_KEY) return issuer.spkiDer;
  if (info.algorithm.algorithm !== RSASSA_PSS) return null;
  const key = new Uint8Array(info.subjectPublicKey);
  const bits = [0x03, ...derLength(key.length + 1), 0x00, ...key];
  const body = [...RSA_KEY_ALG, ...bits];
  return new Uint8Array([0x30, ...derLength(body.length), ...body]);
}

/** RSASSA-PSS (RFC 4055 §3.1, RFC 8017 §8.1.2) with the parameters the certificate states. */
async function verifyPss(child: ParsedCertificate, issuer: ParsedCertificate): Promise<Verified> {
  const params = pssParams(child.cert.signatureAlgorithm.parameters);
  if (params.ok !== true) return params.ok === null ? { ok: null, reason: params.reason } : { ok: false, reason: params.reason };
  const spki = rsaSpki(issuer);
  if (spki === null) return { ok: false, reason: "the issuer's key is not an RSA key" };
  try {
    const key = await crypto.subtle.importKey("spki", spki, { name: "RSA-PSS", hash: params.hash }, false, ["verify"]);
    const ok = await crypto.subtle.verify({ name: "RSA-PSS", saltLength: params.saltLength }, key, new Uint8Array(child.cert.signatureValue), child.tbs);
    return ok ? { ok: true } : { ok: false, reason: "the signature does not verify" };
  } catch (e) {
    return { ok: false, reason: `the issuer's key could not be used (${e instanceof Error ? e.message : String(e)})` };
  }
}
