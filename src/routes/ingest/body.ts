// Reads and authenticates the body of POST /api/webhooks/dmarc: size cap (declared, then counted),
// X-Signature HMAC-SHA256 in constant time, raw or JSON form. No I/O beyond the request.
import { z } from "@hono/zod-openapi";
import { readBodyCapped } from "../../lib/body";
import { ApiError, badRequest } from "../../lib/errors";
import { hmacSha256Hex, timingSafeEqual } from "../../lib/crypto";
import { refused } from "../../services/dmarc/ingest";

/** docs/decisions.md D17: a request body (raw XML, gzip, zip or JSON alike) of at most 10 MB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

const badSignature = () => new ApiError(401, "unauthenticated", "Missing or invalid X-Signature.");

/** The report body, read through the one capped reader (src/lib/body.ts). */
export const readCapped = (req: Request, max = MAX_BODY_BYTES): Promise<Uint8Array> => readBodyCapped(req, max);

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/** Fails fast on a missing or malformed header (before the body is read). */
export function presentedSignature(header: string | undefined, secret: string | null): string {
  const m = SIGNATURE.exec(header?.trim() ?? "");
  if (secret === null || !m?.[1]) throw badSignature();
  return m[1].toLowerCase();
}

export async function verifySignature(body: Uint8Array, presented: string, secret: string): Promise<void> {
  const expected = await hmacSha256Hex(secret, body);
  if (!timingSafeEqual(presented, expected)) throw badSignature();
}

export const JsonUpload = z.object({
  recipient: z.string().max(320).nullish(),
  filename: z.string().max(255).nullish(),
  content_base64: z.string().min(1),
});

function base64Bytes(text: string): Uint8Array {
  const clean = text.replace(/[\r\n\t ]/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw refused("bad_base64", "content_base64 is not valid base64.");
  const bin = atob(clean);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The report bytes and recipient of either body form. */
export function unpackBody(body: Uint8Array, contentType: string | undefined): { bytes: Uint8Array; recipient: string | null } {
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType ?? "")) return { bytes: body, recipient: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw badRequest("The request body is not valid JSON.");
  }
  const r = JsonUpload.safeParse(parsed);
  if (!r.success) {
    const errors: Record<string, string[]> = {};
    for (const i of r.error.issues) {
      const key = i.path.join(".") || "body";
      errors[key] = [...(errors[key] ?? []), i.message];
    }
    throw new ApiError(422, "validation_failed", "The request is invalid.", errors);
  }
  return { bytes: base64Bytes(r.data.content_base64), recipient: r.data.recipient?.trim() || null };
}
