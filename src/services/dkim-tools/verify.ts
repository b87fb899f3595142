// POST /dkim/verify service: checks the size cap and verifies every DKIM-Signature of a raw message. DNS I/O via svc.createResolver().
import { treeWalkOrgDomain } from "../../core/dmarc/align";
import { DkimKeyCache, toWire, verifyMessage, type VerifyReport } from "../../core/dkim";
import { payloadTooLarge } from "../../lib/errors";
import type { Services } from "../../services";

/** api-and-webhooks.md limits: raw message size for /dkim/verify is up to 1 MB (counted in UTF-8 octets). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * Key records and imported keys shared by the verifications of this isolate (docs/decisions.md
 * D53): a key is determined by its record text and p=, and the DNS lookup is still made for every
 * message, so a rotated or revoked key is seen at once.
 */
const keyCache = new DkimKeyCache(256);

/**
 * Verifies a message given as JSON text. DNS failures never become a 503 here: each signature
 * whose key lookup failed is a temperror (RFC 8601 §2.7.1) and the overall result says so.
 */
export async function verifyDkimMessage(svc: Services, message: string): Promise<VerifyReport> {
  // JSON carries text; the core hashes it as UTF-8, which is how the octets were received. It is
  // encoded once, for the size limit and for verification.
  const wire = toWire(message);
  if (wire.size > MAX_MESSAGE_BYTES) {
    throw payloadTooLarge(`The message must be at most ${MAX_MESSAGE_BYTES} bytes (it has ${wire.size}).`);
  }
  const resolver = svc.createResolver();
  return verifyMessage(wire, { resolver, now: svc.clock.now(), orgDomain: treeWalkOrgDomain(resolver), keyCache });
}
