// SMTP TLS reports mailed to a domain's report address (RFC 8460 §5.3): the handler tells them from
// DMARC reports by the application/tlsrpt+gzip attachment (or its file name) and stores them once.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { gzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { handleEmail } from "../../src/email";
import { makeTeam } from "../support/api";
import { insertDomain } from "../support/factories";
import { enc, googleShape, rfcExample, storedTls } from "../routes/tls/fixtures";
import { stored } from "../support/reports";

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/.{1,76}/g, "$&\r\n");

/** A TLS report mail as RFC 8460 §5.3 describes it: multipart/report; report-type=tlsrpt, a text part, the gzip attachment. */
function tlsMail(to: string, name: string, type: string, bytes: Uint8Array): string {
  return (
    `From: tlsrpt@company-x.example\r\nTo: ${to}\r\nSubject: Report Domain: example.com Submitter: company-x.example Report-ID: <5065427c@company-x.example>\r\n` +
    `TLS-Report-Domain: example.com\r\nTLS-Report-Submitter: company-x.example\r\nMessage-ID: <t1@company-x.example>\r\nDate: Mon, 20 Nov 2023 00:00:00 +0000\r\nMIME-Version: 1.0\r\n` +
    `Content-Type: multipart/report; report-type="tlsrpt"; boundary="b1"\r\n\r\n` +
    `--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThis is an aggregate TLS report from company-x.example\r\n` +
    `--b1\r\nContent-Type: ${type}; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(bytes)}--b1--\r\n`
  );
}

async function deliver(to: string, raw: string): Promise<string | null> {
  const bytes = enc(raw);
  let reason: string | null = null;
  const message = {
    from: "tlsrpt@company-x.example",
    to,
    headers: new Headers(),
    raw: new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    }),
    rawSize: bytes.length,
    setReject: (r: string) => {
      reason = r;
    },
  } as unknown as ForwardableEmailMessage;
  const ctx = createExecutionContext();
  await handleEmail(message, env, ctx);
  await waitOnExecutionContext(ctx);
  return reason;
}

describe("TLS reports by mail", () => {
  it("stores an application/tlsrpt+gzip attachment, and one told only by its RFC 8460 file name; a copy counts once", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const rfc = gzipSync(enc(JSON.stringify(rfcExample(d.name))));
    expect(
      await deliver(d.address, tlsMail(d.address, `company-x.example!${d.name}!1470013207!1470186007.json.gz`, "application/tlsrpt+gzip", rfc)),
    ).toBeNull();
    const g = gzipSync(enc(JSON.stringify(googleShape(d.name))));
    const name = `google.com!${d.name}!1470013207!1470186007!001.json.gz`;
    expect(await deliver(d.address, tlsMail(d.address, name, "application/octet-stream", g))).toBeNull();
    expect(await deliver(d.address, tlsMail(d.address, name, "application/octet-stream", g))).toBeNull();
    const s = await storedTls(d.id);
    expect(s.reports.map((r) => [r.org_name, r.via])).toEqual([
      ["Company-X", "email"],
      ["Google Inc.", "email"],
    ]);
    expect(s.failures).toHaveLength(3);
    expect((await stored(d.id)).reports, "never read as a DMARC report").toHaveLength(0);
  });

  it("rejects hostile TLS reports with the reason and stores nothing", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const bad = gzipSync(enc(JSON.stringify({ ...rfcExample(d.name), policies: "nope" })));
    expect(await deliver(d.address, tlsMail(d.address, "x.json.gz", "application/tlsrpt+gzip", bad))).toMatch(/invalid_report/);
    const bomb = gzipSync(new Uint8Array(21 * 1024 * 1024));
    expect(await deliver(d.address, tlsMail(d.address, "x.json.gz", "application/tlsrpt+gzip", bomb))).toMatch(/too large/i);
    const plainJunk = enc("{");
    expect(await deliver(d.address, tlsMail(d.address, "x.json", "application/tlsrpt+json", plainJunk))).toMatch(/invalid_json/);
    expect((await storedTls(d.id)).reports).toEqual([]);
  });
});
