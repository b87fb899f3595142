// Standard Webhooks signatures (HMAC-SHA256) and AES-GCM encryption of endpoint secrets at rest.
// No I/O: WebCrypto only (crypto.getRandomValues, crypto.subtle).
import { err, ok, type Result } from "../types";
import { base64ToBytes, bytesToBase64, utf8 } from "./encoding";

const PREFIX = "whsec_";
// Standard Webhooks spec, "Symmetric signatures": secrets are 24 to 64 random bytes.
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
export const DEFAULT_TOLERANCE_SECONDS = 300; // docs/decisions.md D10: reject timestamps older than 5 min

/** A new endpoint secret: "whsec_" + base64 of 32 random bytes. */
export function generateSecret(): string {
  return PREFIX + bytesToBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** The HMAC key of a secret: the base64-decoded part after "whsec_" (docs/decisions.md D10). */
export function decodeSecret(secret: string): Result<Uint8Array> {
  if (!secret.startsWith(PREFIX)) return err("secret must begin with whsec_");
  const bytes = base64ToBytes(secret.slice(PREFIX.length));
  if (!bytes.ok) return err("secret is not base64 after whsec_");
  const n = bytes.value.length;
  if (n < MIN_SECRET_BYTES || n > MAX_SECRET_BYTES) return err(`secret must decode to 24-64 bytes, got ${n}`);
  return bytes;
}

async function hmacKey(secret: string): Promise<Result<CryptoKey>> {
  const raw = decodeSecret(secret);
  if (!raw.ok) return raw;
  const key = await crypto.subtle.importKey("raw", raw.value, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  return ok(key);
}

export interface SignInput {
  id: string;
  timestamp: number; // Unix seconds, the webhook-timestamp header
  body: string; // the exact bytes sent
}

const signedContent = (m: SignInput): Uint8Array => utf8(`${m.id}.${m.timestamp}.${m.body}`);

/**
 * The webhook-signature header value: one "v1,<base64>" per secret, space-separated, in the order
 * given (newest first; two secrets during a 24 h rotation, docs/decisions.md D13).
 */
export async function sign(message: SignInput, secrets: readonly string[]): Promise<Result<string>> {
  if (secrets.length === 0) return err("no signing secret");
  if (!Number.isSafeInteger(message.timestamp) || message.timestamp < 0) return err("timestamp must be Unix seconds");
  const content = signedContent(message);
  const parts: string[] = [];
  for (const secret of secrets) {
    const key = await hmacKey(secret);
    if (!key.ok) return key;
    const mac = await crypto.subtle.sign("HMAC", key.value, content);
    parts.push(`v1,${bytesToBase64(new Uint8Array(mac))}`);
  }
  return ok(parts.join(" "));
}

export type VerifyError = "missing_headers" | "bad_timestamp" | "timestamp_too_old" | "timestamp_too_new" | "bad_secret" | "no_matching_signature";

type HeaderSource = Headers | Record<string, string | undefined>;

function header(headers: HeaderSource, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name && v !== undefined) return v;
  return null;
}

/**
 * Receiver-side check, as a receiver would do it (for tests and docs). Each "v1," candidate is
 * checked with crypto.subtle.verify, which compares MACs in constant time (docs/decisions.md D13).
 */
export async function verify(
  headers: HeaderSource,
  body: string,
  secret: string,
  now: Date,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): Promise<Result<true, VerifyError>> {
  const id = header(headers, "webhook-id");
  const ts = header(headers, "webhook-timestamp");
  const sig = header(headers, "webhook-signature");
  if (!id || !ts || !sig) return err("missing_headers");
  if (!/^\d{1,15}$/.test(ts)) return err("bad_timestamp");
  const timestamp = Number(ts);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (nowSeconds - timestamp > toleranceSeconds) return err("timestamp_too_old");
  if (timestamp - nowSeconds > toleranceSeconds) return err("timestamp_too_new");
  const key = await hmacKey(secret);
  if (!key.ok) return err("bad_secret");
  const content = signedContent({ id, timestamp, body });
  for (const candidate of sig.split(" ")) {
    const comma = candidate.indexOf(",");
    if (comma < 0 || candidate.slice(0, comma) !== "v1") continue; // unknown versions are skipped
    const mac = base64ToBytes(candidate.slice(comma + 1));
    if (!mac.ok) continue;
    if (await crypto.subtle.verify("HMAC", key.value, mac.value, content)) return ok(true);
  }
  return err("no_matching_signature");
}

// ---- Encryption of secrets at rest (AES-256-GCM, NIST SP 800-38D) ----
// "v2:<key id>:<base64 iv>:<base64 ciphertext+tag>", with additional authenticated data naming what
// the secret belongs to (e.g. "webhook-endpoint:42"): a ciphertext copied onto another row fails the
// tag check. The key id (first 8 hex digits of SHA-256 of the key) says which key sealed it, so the
// key can be rotated without downtime (docs/decisions.md). "v1:<iv>:<ct>" (no key id, no AAD) is
// still opened, for secrets sealed before v2.

const IV_BYTES = 12; // SP 800-38D §8.2: 96-bit random IVs; a fresh one for every encryption

export interface SealingKey {
  id: string;
  key: CryptoKey;
}

/** Imports a base64 32-byte key and derives its id. */
export async function importSealingKey(keyB64: string): Promise<Result<SealingKey>> {
  const raw = base64ToBytes(keyB64);
  if (!raw.ok || raw.value.length !== 32) return err("a secret key must be base64 of 32 bytes");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw.value));
  const id = [...digest.subarray(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return ok({ id, key: await crypto.subtle.importKey("raw", raw.value, "AES-GCM", false, ["encrypt", "decrypt"]) });
}

/** Seals a secret under `key`, bound to `binding` (authenticated, not encrypted). */
export async function sealBound(plain: string, key: SealingKey, binding: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: utf8(binding) }, key.key, utf8(plain));
  return `v2:${key.id}:${bytesToBase64(iv)}:${bytesToBase64(new Uint8Array(ct))}`;
}

/** The key id a stored secret names ("v1" secrets name none), or null when it is not a sealed secret. */
export function sealedKeyId(cipher: string): string | null | undefined {
  const parts = cipher.split(":");
  if (parts[0] === "v2" && parts.length === 4) return parts[1] ?? null;
  if (parts[0] === "v1" && parts.length === 3) return undefined;
  return null;
}

/** Opens a v2 secret with the key it names and the binding it was sealed for, or a v1 secret with any key. */
export async function openBound(cipher: string, keys: readonly SealingKey[], binding: string): Promise<Result<string>> {
  const parts = cipher.split(":");
  let ivText: string | undefined;
  let ctText: string | undefined;
  let candidates: readonly SealingKey[];
  let aad: Uint8Array | undefined;
  if (parts[0] === "v2" && parts.length === 4) {
    [, , ivText, ctText] = parts;
    candidates = keys.filter((k) => k.id === parts[1]);
    if (candidates.length === 0) return err(`no configured key has id ${parts[1]}`);
    aad = utf8(binding);
  } else if (parts[0] === "v1" && parts.length === 3) {
    [, ivText, ctText] = parts;
    candidates = keys;
  } else return err("not a sealed secret");
  const iv = base64ToBytes(ivText ?? "");
  const ct = base64ToBytes(ctText ?? "");
  if (!iv.ok || iv.value.length !== IV_BYTES || !ct.ok || ct.value.length < 16) return err("malformed sealed secret");
  for (const k of candidates) {
    try {
      const params: { name: "AES-GCM"; iv: Uint8Array; additionalData?: Uint8Array } = aad
        ? { name: "AES-GCM", iv: iv.value, additionalData: aad }
        : { name: "AES-GCM", iv: iv.value };
      const plain = await crypto.subtle.decrypt(params, k.key, ct.value);
      return ok(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(plain));
    } catch {
      // try the next key (v1 secrets name none)
    }
  }
  return err("sealed secret failed authentication (wrong key, another row's secret, or tampered)");
}
