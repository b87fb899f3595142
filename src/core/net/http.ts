// Bounded HTTPS GET through the injected HttpFetch (timeout, byte-capped body, redirects reported or
// followed to a small limit over https only), shared by MTA-STS, BIMI and RDAP. I/O only via the port.
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
  /** Accept header, when the server negotiates (RDAP: RFC 7480 §4.2). */
  accept?: string;
  /** Redirects to follow (https targets only); 0, the default, reports a 3xx without following it (MTA-STS: RFC 8461 §3.3). */
  maxRedirects?: number;
}

/** A network, TLS or timeout failure is an error result (the caller maps it to temperror); never throws. */
export async function fetchTextCapped(fetch: HttpFetch, url: string, opts: FetchCapOptions): Promise<Result<FetchedText, string>> {
  let res: Response;
  let target = url;
  for (let hop = 0; ; hop++) {
    try {
      res = await fetch(target, {
        method: "GET",
        redirect: "manual",
        headers: opts.accept ? { accept: opts.accept } : undefined,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
    } catch (e) {
      return err(e instanceof Error ? `${e.name}: ${e.message}` : "fetch failed");
    }
    const next = redirectTarget(res, target);
    if (next === null || hop >= (opts.maxRedirects ?? 0)) break;
    await res.body?.cancel().catch(() => undefined);
    target = next;
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

/** The https URL a 3xx points to, or null when the answer is not a usable redirect. */
function redirectTarget(res: Response, from: string): string | null {
  if (res.status < 300 || res.status > 399) return null;
  const location = res.headers.get("location");
  if (!location) return null;
  try {
    const next = new URL(location, from);
    return next.protocol === "https:" ? next.toString() : null;
  } catch {
    return null;
  }
}

/** A response body as UTF-8 text, at most `maxBytes` of it (the rest is not read; `tooLarge` says so). */
export async function readCapped(res: Response, maxBytes: number): Promise<Result<{ body: string; bytes: number; tooLarge: boolean }, string>> {
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
