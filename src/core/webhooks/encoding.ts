// Strict base64 (RFC 4648 §4) to and from bytes with atob/btoa, which workerd provides. No I/O.
import { err, ok, type Result } from "../types";

// RFC 4648 §4 alphabet with optional padding; atob alone is too forgiving (it skips whitespace).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function base64ToBytes(text: string): Result<Uint8Array> {
  if (!BASE64.test(text)) return err("not base64");
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return ok(out);
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
