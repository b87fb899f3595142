// Endpoint secrets at rest: sealed with AES-GCM under WEBHOOK_SECRET_KEY, never stored or logged in
// plain text; opened only to sign a delivery. No I/O besides WebCrypto.
import { decryptSecret, encryptSecret } from "../../core/webhooks";
import { ApiError } from "../../lib/errors";
import type { Services } from "../../services";
import type { EndpointRow } from "./views";

/** Without a key the service refuses to create or rotate secrets (503): it never stores plain text. */
export const secretKeyMissing = () =>
  new ApiError(503, "dependency_unavailable", "Webhook secrets cannot be stored: the WEBHOOK_SECRET_KEY secret is not configured.");

export async function sealSecret(svc: Services, plain: string): Promise<string> {
  const key = svc.config.webhookSecretKey;
  if (key === null) throw secretKeyMissing();
  const sealed = await encryptSecret(plain, key);
  if (!sealed.ok) {
    console.error(JSON.stringify({ level: "error", msg: "WEBHOOK_SECRET_KEY is unusable", error: sealed.error }));
    throw secretKeyMissing();
  }
  return sealed.value;
}

/**
 * The secrets a delivery is signed with, newest first: the current one, plus the previous one while
 * its 24 h rotation window lasts (spec §6 Signature 3). Null when they cannot be opened.
 */
export async function signingSecrets(svc: Services, endpoint: EndpointRow, now: Date): Promise<string[] | null> {
  const key = svc.config.webhookSecretKey;
  if (key === null) return null;
  const current = await decryptSecret(endpoint.secretEnc, key);
  if (!current.ok) return null;
  const out = [current.value];
  const prevValid = endpoint.previousSecretEnc && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  if (prevValid && endpoint.previousSecretEnc) {
    const previous = await decryptSecret(endpoint.previousSecretEnc, key);
    if (previous.ok) out.push(previous.value);
  }
  return out;
}
