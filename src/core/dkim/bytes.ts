// Byte helpers for the DKIM engine (base64, hex, UTF-8, SHA digests) over WebCrypto. No I/O.

const ENC = new TextEncoder();

export const utf8 = (s: string): Uint8Array => ENC.encode(s);

/**
 * Bytes ↔ "binary string" (one char per octet, U+0000–U+00FF). Raw mail is octets and may hold
 * 8-bit text that is not UTF-8; decoding it as UTF-8 would replace bytes and break signatures, so
 * byte input is carried as a binary string and encoded back octet for octet. (TextDecoder's
 * "latin1" is windows-1252 and would remap 0x80–0x9F, hence the manual mapping.)
 */
export function bytesToBinary(bytes: Uint8Array): string {
  // Chunked to stay clear of the engine's argument-count limit.
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return s;
}

export function binaryToBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

/** Encode message text the way it was received: octet-for-octet for byte input, else UTF-8. */
export const encodeText = (s: string, binary: boolean): Uint8Array => (binary ? binaryToBytes(s) : ENC.encode(s));

/** Strict base64 decode after removing FWS (RFC 6376 §3.5: b=, bh= and p= may contain FWS). */
export function base64Decode(input: string): Uint8Array | null {
  const s = input.replace(/[ \t\r\n]+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 === 1) return null;
  try {
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

export function base64Encode(bytes: Uint8Array): string {
  return btoa(bytesToBinary(bytes));
}

export function hex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

export async function sha(alg: "SHA-256" | "SHA-1", data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(alg, data));
}

export async function sha256Hex(data: Uint8Array): Promise<string> {
  return hex(await sha("SHA-256", data));
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** PEM armour (RFC 7468) with 64-character lines. */
export function toPem(label: string, der: Uint8Array): string {
  const b64 = base64Encode(der);
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

export function fromPem(pem: string): Uint8Array | null {
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "");
  return base64Decode(body);
}
