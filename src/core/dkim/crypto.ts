// WebCrypto primitives for DKIM signatures: RSASSA-PKCS1-v1_5 (RFC 6376 §3.3) and Ed25519 (RFC 8463). No I/O.
import { sha } from "./bytes";
import type { KeyMaterial } from "./key";

const rsaAlg = (hash: "sha256" | "sha1") => ({ name: "RSASSA-PKCS1-v1_5", hash: hash === "sha1" ? "SHA-1" : "SHA-256" });

/**
 * RFC 8463 §3: Ed25519-SHA256 computes the DKIM hash of the canonicalized header data with SHA-256
 * and signs that 32-byte hash with PureEdDSA, i.e. the Ed25519 input is the digest, not the data.
 * (Checked against the RFC 8463 Appendix A example in the tests.) RSA signs the data itself with
 * EMSA-PKCS1-v1_5, which hashes internally.
 */
async function signingInput(keyType: "rsa" | "ed25519", data: Uint8Array): Promise<Uint8Array> {
  return keyType === "ed25519" ? sha("SHA-256", data) : data;
}

/** Where imported public keys are kept (key-cache.ts); `id` names the key (algorithm, hash, p=). */
export interface KeyImports {
  imported(id: string, load: () => Promise<CryptoKey>): Promise<CryptoKey>;
}

function importVerifyKey(key: KeyMaterial, hash: "sha256" | "sha1"): Promise<CryptoKey> {
  return key.type === "rsa"
    ? crypto.subtle.importKey("spki", key.spki, rsaAlg(hash), false, ["verify"])
    : crypto.subtle.importKey("raw", key.raw, { name: "Ed25519" }, false, ["verify"]);
}

/** `keyId` must be determined by the key bytes (the p= text), so equal ids are equal keys. */
export async function verifySignature(
  key: KeyMaterial,
  hash: "sha256" | "sha1",
  signature: Uint8Array,
  data: Uint8Array,
  imports?: { cache: KeyImports; keyId: string },
): Promise<boolean> {
  try {
    const load = () => importVerifyKey(key, hash);
    const k = await (imports ? imports.cache.imported(`${key.type}/${hash}/${imports.keyId}`, load) : load());
    if (key.type === "rsa") return await crypto.subtle.verify("RSASSA-PKCS1-v1_5", k, signature, data);
    return await crypto.subtle.verify({ name: "Ed25519" }, k, signature, await signingInput("ed25519", data));
  } catch {
    // A key WebCrypto refuses (bad DER, wrong size) cannot verify anything.
    return false;
  }
}

/** Import a PKCS#8 private key for DKIM signing with the given algorithm. */
export async function importPrivateKey(pkcs8: Uint8Array, keyType: "rsa" | "ed25519", hash: "sha256" | "sha1"): Promise<CryptoKey> {
  return keyType === "rsa"
    ? crypto.subtle.importKey("pkcs8", pkcs8, rsaAlg(hash), false, ["sign"])
    : crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
}

export async function signData(key: CryptoKey, keyType: "rsa" | "ed25519", data: Uint8Array): Promise<Uint8Array> {
  const alg = keyType === "rsa" ? "RSASSA-PKCS1-v1_5" : { name: "Ed25519" };
  return new Uint8Array(await crypto.subtle.sign(alg, key, await signingInput(keyType, data)));
}
