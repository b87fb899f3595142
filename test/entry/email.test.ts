// The Worker's exported email handler, called as the runtime calls it: worker.email(message, env, ctx)
// with a ForwardableEmailMessage shaped like Email Routing's (from, to, parsed headers, the raw MIME as a
// ReadableStream delivered in chunks, rawSize, setReject/forward/reply). A refusal must reach setReject
// (the SMTP reply); a transient failure must throw, so the sending MTA retries.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { gzipSync } from "fflate";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_MESSAGE_BYTES } from "../../src/email";
import worker from "../../src/index";
import { makeTeam } from "../support/api";
import { type TestDomain, insertDomain } from "../support/factories";
import { base64, day0, enc, reportXml, stored } from "../support/reports";

afterEach(() => vi.restoreAllMocks());

const CRLF = "\r\n";

/** A report mail as Google sends it: multipart/mixed with a gzip attachment, base64 in 76-column lines. */
function reportMail(to: string, attachment: Uint8Array | null): string {
  const head = [
    "From: noreply-dmarc-support@google.com",
    `To: ${to}`,
    "Subject: Report domain: example.com Submitter: google.com Report-ID: 42",
    "Message-ID: <entry-1@google.com>",
    "Date: Mon, 20 Nov 2023 00:00:00 +0000",
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b1"',
  ].join(CRLF);
  const parts = [`--b1${CRLF}Content-Type: text/plain; charset=utf-8${CRLF}${CRLF}An aggregate report.${CRLF}`];
  if (attachment) {
    const b64 = base64(attachment).replace(/.{1,76}/g, `$&${CRLF}`);
    parts.push(
      `--b1${CRLF}Content-Type: application/gzip; name="google.com!x!1!2.xml.gz"${CRLF}Content-Disposition: attachment; filename="google.com!x!1!2.xml.gz"${CRLF}Content-Transfer-Encoding: base64${CRLF}${CRLF}${b64}`,
    );
  }
  return `${head}${CRLF}${CRLF}${parts.join("")}--b1--${CRLF}`;
}

/** The message the runtime hands to email(): the raw stream yields 1 KB chunks, pulled on demand. */
function runtimeMessage(to: string, raw: string, o: { rawSize?: number } = {}) {
  const bytes = enc(raw);
  let offset = 0;
  const pulled = vi.fn();
  const headerBlock = raw.slice(0, raw.indexOf(`${CRLF}${CRLF}`));
  const headers = new Headers();
  for (const line of headerBlock.split(CRLF)) {
    const i = line.indexOf(":");
    if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  const message = {
    from: "noreply-dmarc-support@google.com",
    to,
    headers,
    raw: new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulled();
          if (offset >= bytes.length) return c.close();
          c.enqueue(bytes.subarray(offset, offset + 1024));
          offset += 1024;
        },
        // highWaterMark 0: nothing is pulled until the handler reads, so `pulled` tells whether it did.
      },
      { highWaterMark: 0 },
    ),
    rawSize: o.rawSize ?? bytes.length,
    canBeForwarded: true,
    setReject: vi.fn<(reason: string) => void>(),
    forward: vi.fn(async () => ({ messageId: "<fwd@test>" })),
    reply: vi.fn(async () => ({ messageId: "<reply@test>" })),
  };
  return { message, pulled, asRuntime: message as unknown as ForwardableEmailMessage };
}

async function deliver(m: ReturnType<typeof runtimeMessage>) {
  const ctx = createExecutionContext();
  await worker.email(m.asRuntime, env, ctx);
  await waitOnExecutionContext(ctx);
}

const report = (d: TestDomain, count: number, reportId = `entry-${d.id}`) =>
  gzipSync(enc(reportXml({ domain: d.name, reportId, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count }] })));

describe("the exported email handler", () => {
  it("ingests a report mailed to a domain's report address: no reject, no forward, the report counted", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const m = runtimeMessage(d.address, reportMail(d.address, report(d, 7)));
    await deliver(m);
    expect(m.message.setReject).not.toHaveBeenCalled();
    expect(m.message.forward).not.toHaveBeenCalled();
    expect(m.message.reply).not.toHaveBeenCalled();
    const s = await stored(d.id);
    expect(s.reports.map((r) => r.status)).toEqual(["complete"]);
    expect(s.messages).toBe(7);
  });

  it("rejects an unknown recipient through setReject, once, with one line, before reading the body", async () => {
    const m = runtimeMessage("nobody@reports.test", reportMail("nobody@reports.test", enc("x")));
    await deliver(m);
    expect(m.message.setReject).toHaveBeenCalledTimes(1);
    const reason = m.message.setReject.mock.calls[0]?.[0] ?? "";
    expect(reason).toMatch(/unknown recipient/i);
    expect(reason).not.toMatch(/[\r\n]/);
    expect(m.pulled).not.toHaveBeenCalled();
  });

  it("rejects a message over the size cap on rawSize alone, without reading it", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const m = runtimeMessage(d.address, reportMail(d.address, report(d, 1)), { rawSize: MAX_MESSAGE_BYTES + 1 });
    await deliver(m);
    expect(m.message.setReject).toHaveBeenCalledWith(expect.stringMatching(/too large/i));
    expect(m.pulled).not.toHaveBeenCalled();
    expect((await stored(d.id)).reports).toEqual([]);
  });

  it("rejects a mail without a report, and a report for an unverified domain; nothing stored", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const none = runtimeMessage(d.address, reportMail(d.address, null));
    await deliver(none);
    expect(none.message.setReject).toHaveBeenCalledWith(expect.stringMatching(/no dmarc/i));
    const pending = await insertDomain(team.id, { verified: false });
    const early = runtimeMessage(pending.address, reportMail(pending.address, report(pending, 3)));
    await deliver(early);
    expect(early.message.setReject).toHaveBeenCalledWith(expect.stringContaining("domain_not_verified"));
    expect((await stored(d.id)).reports).toEqual([]);
    expect((await stored(pending.id)).reports).toEqual([]);
  });

  it("throws on a transient failure (D1 down) without rejecting, so the sending MTA retries later", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    vi.spyOn(env.DB, "batch").mockRejectedValue(new Error("D1 unavailable (test)"));
    const m = runtimeMessage(d.address, reportMail(d.address, report(d, 2)));
    await expect(worker.email(m.asRuntime, env, createExecutionContext())).rejects.toThrow();
    expect(m.message.setReject).not.toHaveBeenCalled();
    vi.mocked(env.DB.batch).mockRestore();
    // The retry succeeds and counts the report once.
    const again = runtimeMessage(d.address, reportMail(d.address, report(d, 2)));
    await deliver(again);
    expect(again.message.setReject).not.toHaveBeenCalled();
    expect((await stored(d.id)).messages).toBe(2);
  });
});
