// Generates DKIM key pairs and their DNS TXT records (RFC 6376 §3.6.1, RFC 8463 §4.2) with WebCrypto. No I/O.
import { err, ok, type Result } from "../types";
import { base64Encode, sha256Hex, toPem } from "./bytes";
import { isValidSelector } from "./selectors";

export { signMessage, type SignOptions } from "./sign";

export type KeyAlgorithm = "rsa-1024" | "rsa-2048" | "rsa-4096" | "ed25519";

export interface GeneratedKey {
  domain: string;
  selector: string;
  algorithm: KeyAlgorithm;
  dns: { host: string; type: "TXT"; value: string };
  /** BIND presentation with the value split into quoted strings of at most 255 bytes (RFC 1035 §3.3.14). */
  zone_file: string;
  /** SHA-256 of the p= bytes (SPKI DER for RSA, raw key for Ed25519), lower-case hex. */
  fingerprint: string;
  key_bits: number;
  /** PKCS#8 PEM; the only copy: the caller decides where it is kept. */
  private_key_pem: string;
}

export async function generateKeyPair(o: { domain: string; selector: string; algorithm: KeyAlgorithm }): Promise<Result<GeneratedKey>> {
  const domain = o.domain.toLowerCase().replace(/\.$/, "");
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(domain)) return err(`invalid domain "${o.domain}"`);
  if (!isValidSelector(o.selector)) return err(`invalid selector "${o.selector}"`);
  let pub: Uint8Array;
  let pkcs8: Uint8Array;
  let bits: number;
  let k: "rsa" | "ed25519";
  if (o.algorithm === "ed25519") {
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    // RFC 8463 §4.2: p= is the base64 of the raw 32-byte public key, not an SPKI.
    pub = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
    pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
    bits = 256;
    k = "ed25519";
  } else {
    bits = Number(o.algorithm.slice(4));
    const pair = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    pub = new Uint8Array((await crypto.subtle.exportKey("spki", pair.publicKey)) as ArrayBuffer);
    pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
    k = "rsa";
  }
  const value = `v=DKIM1; k=${k}; p=${base64Encode(pub)}`;
  const host = `${o.selector.toLowerCase()}._domainkey.${domain}`;
  return ok({
    domain,
    selector: o.selector.toLowerCase(),
    algorithm: o.algorithm,
    dns: { host, type: "TXT", value },
    zone_file: zoneRecord(host, value),
    fingerprint: await sha256Hex(pub),
    key_bits: bits,
    private_key_pem: toPem("PRIVATE KEY", pkcs8),
  });
}

/** Split into ≤255-byte character-strings: one TXT string cannot hold a 2048-bit key (§3.6.2.2). */
export function txtStrings(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < value.length; i += 255) out.push(value.slice(i, i + 255));
  return out.length > 0 ? out : [""];
}

export function zoneRecord(host: string, value: string): string {
  const parts = txtStrings(value).map((s) => `"${s.replace(/["\\]/g, "\\$&")}"`);
  return parts.length === 1 ? `${host}. IN TXT ${parts[0]}` : `${host}. IN TXT (\n  ${parts.join("\n  ")} )`;
}
