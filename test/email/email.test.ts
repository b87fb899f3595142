// The Worker's email handler: DMARC reports mailed to report addresses, built as real MIME messages.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { gzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { handleEmail, MAX_MESSAGE_BYTES } from "../../src/email";
import worker from "../../src/index";
import { makeTeam } from "../support/api";
import { base64, day0, enc, makeDomain, reportXml, stored, type TestDomain } from "../support/reports";

interface FakeMessage {
  message: ForwardableEmailMessage;
  rejected: () => string | null;
}

function fakeMessage(to: string, raw: string | Uint8Array, rawSize?: number): FakeMessage {
  const bytes = typeof raw === "string" ? enc(raw) : raw;
  let reason: string | null = null;
  const message = {
    from: "noreply-dmarc-support@google.com",
    to,
    headers: new Headers(),
    raw: new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    }),
    rawSize: rawSize ?? bytes.length,
    canBeForwarded: true,
    setReject: (r: string) => {
      reason = r;
    },
    forward: async () => ({ messageId: "x" }),
    reply: async () => ({ messageId: "x" }),
  } as unknown as ForwardableEmailMessage;
  return { message, rejected: () => reason };
}

function wrap(b64: string): string {
  return b64.replace(/.{1,76}/g, "$&\r\n");
}

/** A report mail the way Google sends it: multipart/mixed, a short text part, a base64 attachment. */
function mime(to: string, attachment: { name: string; type: string; bytes: Uint8Array } | null, inlineXml?: string): string {
  const head = `From: noreply-dmarc-support@google.com\r\nTo: ${to}\r\nSubject: Report domain: example.com Submitter: google.com Report-ID: 123\r\nMessage-ID: <r1@google.com>\r\nDate: Mon, 20 Nov 2023 00:00:00 +0000\r\nMIME-Version: 1.0\r\n`;
  if (inlineXml !== undefined) return `${head}Content-Type: text/xml; charset=utf-8\r\n\r\n${inlineXml}`;
  const parts = [`--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThis is an aggregate report from google.com.\r\n`];
  if (attachment) {
    parts.push(
      `--b1\r\nContent-Type: ${attachment.type}; name="${attachment.name}"\r\nContent-Disposition: attachment; filename="${attachment.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${wrap(base64(attachment.bytes))}`,
    );
  }
  return `${head}Content-Type: multipart/mixed; boundary="b1"\r\n\r\n${parts.join("")}--b1--\r\n`;
}

const xmlFor = (d: TestDomain, count: number, reportId?: string) =>
  reportXml({ domain: d.name, reportId, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count }] });

async function deliver(m: FakeMessage): Promise<void> {
  const ctx = createExecutionContext();
  await handleEmail(m.message, env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("email handler", () => {
  it("ingests .xml.gz, .zip and inline XML reports sent to a report address", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const gz = fakeMessage(d.address, mime(d.address, { name: "google.com!x!1!2.xml.gz", type: "application/gzip", bytes: gzipSync(enc(xmlFor(d, 3))) }));
    await deliver(gz);
    expect(gz.rejected()).toBeNull();
    const zip = fakeMessage(
      d.address,
      mime(d.address, { name: "outlook.com!x!1!2.zip", type: "application/zip", bytes: zipSync({ "r.xml": enc(xmlFor(d, 4)) }) }),
    );
    await deliver(zip);
    expect(zip.rejected()).toBeNull();
    const inline = fakeMessage(d.address, mime(d.address, null, xmlFor(d, 5)));
    await deliver(inline);
    expect(inline.rejected()).toBeNull();
    const s = await stored(d.id);
    expect(s.reports.map((r) => r.status)).toEqual(["complete", "complete", "complete"]);
    expect(s.messages).toBe(12);
  });

  it("refuses reports for a domain whose ownership is not verified (a pending address may be a former owner's)", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id, { verified: false });
    const m = fakeMessage(d.address, mime(d.address, { name: "r.xml", type: "text/xml", bytes: enc(xmlFor(d, 2)) }));
    await deliver(m);
    expect(m.rejected()).toContain("domain_not_verified");
    expect((await stored(d.id)).reports).toEqual([]);
  });

  it("is the Worker's exported email handler", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const m = fakeMessage(d.address, mime(d.address, { name: "r.xml", type: "text/xml", bytes: enc(xmlFor(d, 6)) }));
    const ctx = createExecutionContext();
    expect(worker.email).toBe(handleEmail);
    // workerd calls exported handlers over RPC and refuses one whose arity is not (message, env, ctx).
    expect(worker.email.length, "exported email handler arity").toBe(3);
    for (const name of ["fetch", "queue", "scheduled"] as const) expect((worker[name] as (...a: unknown[]) => unknown).length, name).toBeLessThanOrEqual(3);
    await worker.email(m.message, env, ctx);
    expect(m.rejected()).toBeNull();
    expect((await stored(d.id)).messages).toBe(6);
  });

  it("rejects unknown recipients, oversize messages, mails without a report and hostile reports; nothing stored", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const att = { name: "r.xml", type: "text/xml", bytes: enc(xmlFor(d, 1)) };
    const unknown = fakeMessage("nobody@reports.test", mime("nobody@reports.test", att));
    await deliver(unknown);
    expect(unknown.rejected()).toMatch(/unknown recipient/i);
    const other = fakeMessage(`${d.reportToken}@elsewhere.test`, mime(d.address, att));
    await deliver(other);
    expect(other.rejected()).toMatch(/unknown recipient/i);
    const big = fakeMessage(d.address, mime(d.address, att), MAX_MESSAGE_BYTES + 1);
    await deliver(big);
    expect(big.rejected()).toMatch(/too large/i);
    const none = fakeMessage(d.address, mime(d.address, null));
    await deliver(none);
    expect(none.rejected()).toMatch(/no dmarc/i);
    const xxe = xmlFor(d, 1).replace("<feedback>", `<!DOCTYPE f [<!ENTITY x SYSTEM "file:///etc/passwd">]><feedback>`);
    const hostile = fakeMessage(d.address, mime(d.address, { name: "r.xml", type: "text/xml", bytes: enc(xxe) }));
    await deliver(hostile);
    expect(hostile.rejected()).toMatch(/forbidden_dtd/);
    expect((await stored(d.id)).reports).toHaveLength(0);
  });

  it("rejects a report without any <record> (RFC 7489 Appendix C) with the refusal as the SMTP reason; nothing stored", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const empty = reportXml({ domain: d.name, begin: day0(1), end: day0(0) - 1, records: [] });
    const m = fakeMessage(d.address, mime(d.address, { name: "r.xml", type: "text/xml", bytes: enc(empty) }));
    const ctx = createExecutionContext();
    await worker.email(m.message, env, ctx);
    await waitOnExecutionContext(ctx);
    expect(m.rejected()).toMatch(/^Report refused \(no_records\): .*no <record> element/);
    expect((await stored(d.id)).reports).toHaveLength(0);
    const events = await env.DB.prepare("SELECT COUNT(*) AS n FROM events WHERE domain_id = ?").bind(d.id).first<{ n: number }>();
    const daily = await env.DB.prepare("SELECT COUNT(*) AS n FROM dmarc_daily WHERE domain_id = ?").bind(d.id).first<{ n: number }>();
    expect([events?.n, daily?.n]).toEqual([0, 0]);
  });

  it("a second copy of the same report is accepted silently and counted once", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const raw = mime(d.address, { name: "r.xml.gz", type: "application/gzip", bytes: gzipSync(enc(xmlFor(d, 9, "mail-dup"))) });
    for (let i = 0; i < 2; i++) {
      const m = fakeMessage(d.address, raw);
      await deliver(m);
      expect(m.rejected()).toBeNull();
    }
    const s = await stored(d.id);
    expect(s.reports).toHaveLength(1);
    expect(s.messages).toBe(9);
  });
});

describe("SMTP reject reasons", () => {
  it("never carry CR, LF or other control characters into the SMTP reply, and stay one short line", async () => {
    const { smtpReason } = await import("../../src/email");
    expect(smtpReason("Report refused: bad\r\n250 OK\r\nMAIL FROM:<x>")).toBe("Report refused: bad 250 OK MAIL FROM:<x>");
    expect(smtpReason("a\u0000b\u0007c\u007fd\u0085e")).toBe("a b c d e");
    expect(smtpReason("x".repeat(500))).toHaveLength(200);
  });
});
