// POST /dkim/verify service: checks the size cap and verifies every DKIM-Signature of a raw message. DNS I/O via svc.createResolver().
import { treeWalkOrgDomain } from "../../core/dmarc/align";
import { verifyMessage, type VerifyReport } from "../../core/dkim";
import { payloadTooLarge } from "../../lib/errors";
import type { Services } from "../../services";

/** api-and-webhooks.md limits: raw message size for /dkim/verify is up to 1 MB (counted in UTF-8 octets). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * Verifies a message given as JSON text. DNS failures never become a 503 here: each signature
 * whose key lookup failed is a temperror (RFC 8601 §2.7.1) and the overall result says so.
 */
export async function verifyDkimMessage(svc: Services, message: string): Promise<VerifyReport> {
  const bytes = new TextEncoder().encode(message);
  if (bytes.byteLength > MAX_MESSAGE_BYTES) {
    throw payloadTooLarge(`The message must be at most ${MAX_MESSAGE_BYTES} bytes (it has ${bytes.byteLength}).`);
  }
  const resolver = svc.createResolver();
  // JSON carries text; the core hashes it as UTF-8, which is how the octets were received.
  return verifyMessage(message, { resolver, now: svc.clock.now(), orgDomain: treeWalkOrgDomain(resolver) });
}
