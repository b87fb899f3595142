// Bounded HTTPS GET through the injected HttpFetch (timeout, no redirects, byte-capped body). I/O only via the port.
import type { HttpFetch, Result } from "../types";
import { err, ok } from "../types";

export interface FetchedText {
  status: number;
  contentType: string | null;
  /** Location header of a 3xx (redirects are reported, never followed). */
  location: string | null;
  body: string;
  bytes: number;
  /** The body exceeded maxBytes; `body` then holds only the first maxBytes. */
  tooLarge: boolean;
}

export interface FetchCapOptions {
  timeoutMs?: number;
  maxBytes: number;
}

/** A network, TLS or timeout failure is an error result (the caller maps it to temperror); never throws. */
export async function fetchTextCapped(
  fetch: HttpFetch,
  url: string,
  opts: FetchCapOptions,
): Promise<Result<FetchedText, string>> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "GET",
      redirect: "manual",
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
  } catch (e) {
    return err(e instanceof Error ? `${e.name}: ${e.message}` : "fetch failed");
  }
  const base = {
    status: res.status,
    contentType: res.headers.get("content-type"),
    location: res.headers.get("location"),
  };
  if (res.status < 200 || res.status > 299) {
    // Only a 2xx body is ever used; release the connection without reading.
    await res.body?.cancel().catch(() => undefined);
    return ok({ ...base, body: "", bytes: 0, tooLarge: false });
  }
  const read = await readCapped(res, opts.maxBytes);
  if (!read.ok) return read;
  return ok({ ...base, ...read.value });
}

async function readCapped(
  res: Response,
  maxBytes: number,
): Promise<Result<{ body: string; bytes: number; tooLarge: boolean }, string>> {
  if (!res.body) return ok({ body: "", bytes: 0, tooLarge: false });
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let total = 0;
  let tooLarge = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - kept));
        kept = maxBytes;
        tooLarge = true;
        await reader.cancel().catch(() => undefined);
        break;
      }
      chunks.push(value);
      kept += value.byteLength;
    }
  } catch (e) {
    return err(e instanceof Error ? `body read failed: ${e.message}` : "body read failed");
  }
  const buf = new Uint8Array(kept);
  let at = 0;
  for (const c of chunks) {
    buf.set(c, at);
    at += c.byteLength;
  }
  return ok({ body: new TextDecoder("utf-8").decode(buf), bytes: total, tooLarge });
}
