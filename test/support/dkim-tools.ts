// Test helpers for the DKIM tool routes: typed calls, generated keys via the API, zone_file parsing, independent hashing. No real I/O.
import { expect } from "vitest";
import { SAMPLE } from "../fixtures/dkim/helpers";
import { call, json } from "./api";

export interface KeyPair {
  domain: string;
  selector: string;
  algorithm: string;
  dns: { host: string; type: string; value: string };
  zone_file: string;
  fingerprint: string;
  key_bits: number;
  private_key_pem: string;
}

export interface SigCheck {
  domain: string | null;
  selector: string | null;
  algorithm: string | null;
  result: string;
  reason: string | null;
  body_hash: string | null;
  aligned: boolean;
  alignment: string;
  key: { type: string; bits: number | null; fingerprint: string | null; testing: boolean } | null;
}

export interface Verification {
  result: string;
  from_domain: string | null;
  aligned: boolean;
  signatures: SigCheck[];
  warnings: string[];
}

export async function generate(token: string, body: Record<string, unknown>): Promise<{ res: Response; key: KeyPair }> {
  const res = await call("/api/v1/dkim/generate", { method: "POST", token, body });
  expect(res.status, await res.clone().text()).toBe(200);
  return { res, key: (await json<{ data: KeyPair }>(res)).data };
}

export async function verify(token: string, message: string): Promise<Verification> {
  const res = await call("/api/v1/dkim/verify", { method: "POST", token, body: { message } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await json<{ data: Verification }>(res)).data;
}

/** The quoted character-strings of a BIND TXT line, unescaped (RFC 1035 §5.1). */
export function zoneStrings(zoneFile: string): string[] {
  return [...zoneFile.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? "").replace(/\\(.)/g, "$1"));
}

export const b64 = (s: string): Uint8Array => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

export async function sha256HexOf(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...d].map((x) => x.toString(16).padStart(2, "0")).join("");
}

/** The p= tag of a key record. */
export const pTag = (record: string): string => /(?:^|;)\s*p=([^;]*)/.exec(record)?.[1]?.replace(/\s+/g, "") ?? "";

export const pemDer = (pem: string): Uint8Array => b64(pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""));

/** The same sample message the DKIM core tests sign. */
export const MESSAGE = SAMPLE;
