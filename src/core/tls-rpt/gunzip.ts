// Capped decompression of a TLS report body (RFC 8460 §5.3: application/tlsrpt+gzip). The cap is
// counted on what inflate emits, never on what the gzip trailer claims (docs/decisions.md D17, D101).
// Pure: no I/O.
import { Gunzip } from "fflate";
import { err, ok, type Result } from "../types";

export type TlsBodyError = { code: "too_large" | "malformed_archive" | "not_a_report"; message: string };

/** 20 MB of JSON after decompression: a large receiver's daily report is well under 1 MB. */
export const MAX_TLS_JSON_BYTES = 20 * 1024 * 1024;
// Deflate expands at most ~1032:1, so an 8 KB slice yields at most ~8 MB before the count is looked at again.
const SLICE = 8 * 1024;

class TooLarge extends Error {}

/** The JSON text of a plain or gzip body: gzip is told by its magic bytes 1f 8b (RFC 1952 §2.3.1). */
export function tlsReportText(body: Uint8Array, max = MAX_TLS_JSON_BYTES): Result<string, TlsBodyError> {
  let json = body;
  if (body[0] === 0x1f && body[1] === 0x8b) {
    const parts: Uint8Array[] = [];
    let total = 0;
    let done = false;
    const gz = new Gunzip((data, final) => {
      total += data.length;
      if (total > max) throw new TooLarge();
      parts.push(data.slice());
      if (final) done = true;
    });
    try {
      for (let i = 0; i < body.length; i += SLICE) gz.push(body.subarray(i, i + SLICE), i + SLICE >= body.length);
    } catch (e) {
      if (e instanceof TooLarge) return err({ code: "too_large", message: `more than ${max} bytes of JSON after decompression` });
      return err({ code: "malformed_archive", message: "corrupt gzip stream" });
    }
    if (!done) return err({ code: "malformed_archive", message: "truncated gzip stream" });
    json = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      json.set(p, at);
      at += p.length;
    }
  } else if (body.length > max) {
    return err({ code: "too_large", message: `more than ${max} bytes of JSON` });
  }
  try {
    return ok(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(json));
  } catch {
    return err({ code: "not_a_report", message: "the report is not UTF-8 text" });
  }
}
