// The body cap is enforced while reading: a chunked body without Content-Length is never kept past the
// cap; the rest is read and dropped up to DRAIN_MAX_BYTES so the connection stays usable (D162).
import { describe, expect, it } from "vitest";
import { DRAIN_MAX_BYTES } from "../../src/lib/body";
import { call, json, makeTeam } from "../support/api";
import { insertDomain } from "../support/factories";

/** A body streamed in chunks with no Content-Length; counts how much of it was pulled. */
function chunked(totalBytes: number, chunk = 16 * 1024) {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const n = Math.min(chunk, totalBytes - sent);
      sent += n;
      controller.enqueue(new TextEncoder().encode(" ".repeat(n)));
    },
  });
  return { stream, pulled: () => sent };
}

describe("request body caps", () => {
  it("a JSON body streamed past 64 KB without Content-Length is a 413 once the rest was read and dropped (D162)", async () => {
    const team = await makeTeam();
    const body = chunked(12 * 1024 * 1024, 256 * 1024);
    const res = await call("/api/v1/domains", { method: "POST", token: team.full, rawBody: body.stream, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(await json<{ code: string; message: string }>(res)).toMatchObject({ code: "payload_too_large", message: expect.stringContaining("65536 bytes") });
    // Drained, not left half read: a connection in front of the Worker breaks on a body it never finished.
    expect(body.pulled(), "the rest of the body was read (and dropped)").toBe(12 * 1024 * 1024);
    const after = await call("/api/v1/domains", { token: team.full });
    expect(after.status).toBe(200);
  });

  it("a body still going past the drain bound, or declared above it, is let go of: 413 without reading it all", async () => {
    const team = await makeTeam();
    const endless = chunked(DRAIN_MAX_BYTES + 8 * 1024 * 1024, 512 * 1024);
    const res = await call("/api/v1/domains", { method: "POST", token: team.full, rawBody: endless.stream, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(endless.pulled()).toBeLessThan(DRAIN_MAX_BYTES + 2 * 1024 * 1024);
    const declared = chunked(2 * 1024 * 1024);
    const big = await call("/api/v1/domains", {
      method: "POST",
      token: team.full,
      rawBody: declared.stream,
      headers: { "content-type": "application/json", "content-length": String(DRAIN_MAX_BYTES + 1) },
    });
    expect(big.status).toBe(413);
    expect(declared.pulled(), "a declared size past the bound is not read").toBeLessThan(1024 * 1024);
  });

  it("a JSON body at the cap is read; one byte over is refused; invalid UTF-8 is a 400", async () => {
    const team = await makeTeam();
    const pad = (n: number) => JSON.stringify({ name: `x${"a".repeat(Math.max(0, n - 12))}` });
    const at = pad(64 * 1024);
    const atRes = await call("/api/v1/domains", { method: "POST", token: team.full, rawBody: at, headers: { "content-type": "application/json" } });
    expect(new TextEncoder().encode(at).length).toBeLessThanOrEqual(64 * 1024);
    expect(atRes.status, "at the cap: read, then refused by the schema (a name that long is invalid)").toBe(422);
    const over = `${at} `.padEnd(64 * 1024 + 1, " ");
    expect((await call("/api/v1/domains", { method: "POST", token: team.full, rawBody: over, headers: { "content-type": "application/json" } })).status).toBe(
      413,
    );
    const bad = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]);
    expect((await call("/api/v1/domains", { method: "POST", token: team.full, rawBody: bad, headers: { "content-type": "application/json" } })).status).toBe(
      400,
    );
  });

  it("a report streamed past 10 MB without Content-Length is a 413 before the signature is even checked, the rest drained", async () => {
    const body = chunked(12 * 1024 * 1024, 256 * 1024);
    const res = await call("/api/webhooks/dmarc", {
      method: "POST",
      rawBody: body.stream,
      headers: { "content-type": "application/xml", "x-signature": `sha256=${"0".repeat(64)}` },
    });
    expect(res.status).toBe(413);
    expect((await json<{ code: string }>(res)).code).toBe("payload_too_large");
    expect(body.pulled()).toBe(12 * 1024 * 1024);
  });

  it("a TLS report streamed past 1 MB without Content-Length is a 413, the rest drained", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const body = chunked(12 * 1024 * 1024, 256 * 1024);
    const res = await call(`/api/webhooks/tlsrpt/${d.reportToken}`, {
      method: "POST",
      rawBody: body.stream,
      headers: { "content-type": "application/tlsrpt+json" },
    });
    expect(res.status).toBe(413);
    expect((await json<{ code: string }>(res)).code).toBe("payload_too_large");
    expect(body.pulled()).toBe(12 * 1024 * 1024);
  });
});
