// The one way to read a request body: at most `max` bytes, counted while reading, so a chunked body
// without Content-Length stops at the cap instead of being buffered whole. No I/O beyond the request.
import { payloadTooLarge } from "./errors";

/** A declared Content-Length over the cap fails before anything is read; otherwise bytes are counted as they arrive. */
export async function readBodyCapped(req: Request, max: number): Promise<Uint8Array> {
  const tooLarge = () => payloadTooLarge(`The request body must be at most ${max} bytes.`);
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > max) throw tooLarge();
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
