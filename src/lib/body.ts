// The one way to read a request body: at most `max` bytes, counted while reading, so a chunked body
// without Content-Length stops at the cap instead of being buffered whole. No I/O beyond the request.
import { payloadTooLarge } from "./errors";

/**
 * Past the cap, the rest of a body is read and dropped (never kept) up to this many bytes before the 413
 * is answered (docs/decisions.md D162). A body left half read while the client still sends breaks the
 * connection in front of the Worker (`wrangler dev` answered 500 "Network connection lost" instead of 413,
 * and once went down); a body larger than this is cancelled after it, as a client that never stops.
 */
export const DRAIN_MAX_BYTES = 32 * 1024 * 1024;

/** Reads and drops what is left of a refused body, at most `budget` bytes, then lets go of the stream. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, budget: number): Promise<void> {
  let left = budget;
  try {
    while (left > 0) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.length;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing is left to read.
  } finally {
    reader.releaseLock();
  }
}

/** A declared Content-Length over the cap fails before anything is kept; otherwise bytes are counted as they arrive. */
export async function readBodyCapped(req: Request, max: number): Promise<Uint8Array> {
  const tooLarge = () => payloadTooLarge(`The request body must be at most ${max} bytes.`);
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > max) {
    // A declared size past the drain bound is not read at all: the client has said it will not stop.
    if (req.body !== null) await discardRest(req.body.getReader(), Number(declared) > DRAIN_MAX_BYTES ? 0 : DRAIN_MAX_BYTES);
    throw tooLarge();
  }
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await discardRest(reader, DRAIN_MAX_BYTES - total);
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
