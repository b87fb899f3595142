// Endpoint secrets at rest: sealed with AES-GCM under WEBHOOK_SECRET_KEY, bound to their endpoint
// (additional data "webhook-endpoint:<id>") and naming the key that sealed them, so the key can be
// rotated without downtime (WEBHOOK_SECRET_KEY_PREVIOUS, docs/decisions.md). Never stored or logged
// in plain text; opened only to sign a delivery. No I/O besides WebCrypto.
import { and, eq, notLike } from "drizzle-orm";
import { importSealingKey, openBound, type SealingKey, sealBound, sealedKeyId } from "../../core/webhooks";
import { webhookEndpoints } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import type { Services } from "../../services";
import type { EndpointRow } from "./views";

/** How many replaced secrets may sign at once during their 24 h windows: at most 1 + this many signatures. */
export const MAX_PREVIOUS_SECRETS = 4;

/** Without a key the service refuses to create or rotate secrets (503): it never stores plain text. */
export const secretKeyMissing = () =>
  new ApiError(503, "dependency_unavailable", "Webhook secrets cannot be stored: the WEBHOOK_SECRET_KEY secret is not configured.");

export const secretBinding = (endpointId: number) => `webhook-endpoint:${endpointId}`;

/** The current key first, then the previous one (still accepted to open secrets sealed before a key rotation). */
export async function sealingKeys(svc: Services): Promise<SealingKey[]> {
  const out: SealingKey[] = [];
  for (const b64 of [svc.config.webhookSecretKey, svc.config.webhookSecretKeyPrevious]) {
    if (b64 === null) continue;
    const key = await importSealingKey(b64);
    if (key.ok) out.push(key.value);
    else console.error(JSON.stringify({ level: "error", msg: "a webhook secret key is unusable", error: key.error }));
  }
  return out;
}

export async function sealSecret(svc: Services, plain: string, endpointId: number): Promise<string> {
  if (svc.config.webhookSecretKey === null) throw secretKeyMissing();
  const [current] = await sealingKeys(svc);
  if (!current || current.id === undefined) throw secretKeyMissing();
  return sealBound(plain, current, secretBinding(endpointId));
}

/** A replaced secret that keeps signing until `expires_at` (ms since the epoch). */
export interface PreviousSecret {
  enc: string;
  expires_at: number;
}

/**
 * The replaced secrets still inside their windows. previous_secret_enc holds a JSON list; a row
 * written before lists holds one sealed secret with previous_secret_expires_at.
 */
export function livePreviousSecrets(endpoint: Pick<EndpointRow, "previousSecretEnc" | "previousSecretExpiresAt">, now: Date): PreviousSecret[] {
  const stored = endpoint.previousSecretEnc;
  if (!stored) return [];
  let list: PreviousSecret[];
  if (stored.startsWith("[")) {
    try {
      list = JSON.parse(stored) as PreviousSecret[];
    } catch {
      return [];
    }
  } else list = endpoint.previousSecretExpiresAt ? [{ enc: stored, expires_at: endpoint.previousSecretExpiresAt.getTime() }] : [];
  return list.filter((p) => typeof p.enc === "string" && p.expires_at > now.getTime());
}

/**
 * The secrets a delivery is signed with, newest first: the current one, plus every replaced one
 * still inside its 24 h rotation window. Null when the current one cannot be opened.
 */
export async function signingSecrets(svc: Services, endpoint: EndpointRow, now: Date): Promise<string[] | null> {
  const keys = await sealingKeys(svc);
  if (keys.length === 0) return null;
  const binding = secretBinding(endpoint.id);
  const current = await openBound(endpoint.secretEnc, keys, binding);
  if (!current.ok) {
    console.error(JSON.stringify({ level: "error", msg: "webhook secret cannot be opened", endpoint_id: endpoint.id, error: current.error }));
    return null;
  }
  const out = [current.value];
  for (const p of livePreviousSecrets(endpoint, now)) {
    const previous = await openBound(p.enc, keys, binding);
    if (previous.ok) out.push(previous.value);
  }
  return out;
}

/**
 * After WEBHOOK_SECRET_KEY was replaced (the old one moved to WEBHOOK_SECRET_KEY_PREVIOUS), re-seals
 * up to `limit` current secrets still sealed by another key, so the previous key can be removed once
 * this reports none left. Replaced secrets expire within 24 h and are left alone. Daily cron job.
 */
export async function resealSecrets(svc: Services, limit = 500): Promise<{ resealed: number; left: number; unopenable: number }> {
  const keys = await sealingKeys(svc);
  const current = keys[0];
  if (!current || svc.config.webhookSecretKey === null) return { resealed: 0, left: 0, unopenable: 0 };
  const stale = (
    await svc.db
      .select({ id: webhookEndpoints.id, secretEnc: webhookEndpoints.secretEnc })
      .from(webhookEndpoints)
      .where(notLike(webhookEndpoints.secretEnc, `v2:${current.id}:%`))
      .limit(limit + 1)
  ).filter((e) => sealedKeyId(e.secretEnc) !== null);
  let resealed = 0;
  let unopenable = 0;
  for (const e of stale.slice(0, limit)) {
    const plain = await openBound(e.secretEnc, keys, secretBinding(e.id));
    if (!plain.ok) {
      unopenable++; // sealed by a key no longer configured, or not this row's secret: rotate it through the API
      continue;
    }
    const sealed = await sealBound(plain.value, current, secretBinding(e.id));
    const done = await svc.db
      .update(webhookEndpoints)
      .set({ secretEnc: sealed })
      .where(and(eq(webhookEndpoints.id, e.id), eq(webhookEndpoints.secretEnc, e.secretEnc)))
      .returning({ id: webhookEndpoints.id });
    resealed += done.length;
  }
  const left = stale.length - resealed - unopenable;
  if (stale.length > 0) console.log(JSON.stringify({ level: "info", msg: "webhook secrets re-sealed under the current key", resealed, left, unopenable }));
  return { resealed, left, unopenable };
}
