// Mail to people from the notification layer: a raw multipart/alternative message through the send_email
// binding (parsed back with postal-mime), the dev outbox copy and its HTML view (a sandboxed page with no
// script), and the answers the delivery code acts on (not configured: permanent; a thrown send: transient).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { sendMail } from "../../src/services/notify/send-mail";
import { Browser } from "../support/browser";
import { FROM, headerOf, mailEnv, parseMail, recordingMailer } from "../support/digests";

const mail = { to: "person@people.test", subject: "Hello there", text: "Plain words.", html: "<p>Rich <b>words</b>.</p>", headers: { "X-Test": "yes" } };

describe("sendMail", () => {
  it("sends one raw MIME message from NOTIFY_FROM: both parts, a Message-ID on the sender's domain, Auto-Submitted", async () => {
    const { binding, sent } = recordingMailer();
    expect(await sendMail(createServices(mailEnv(binding)), mail)).toEqual({ ok: true });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ from: FROM, to: mail.to });
    const parsed = await parseMail(sent[0]?.raw ?? "");
    expect(parsed.subject).toBe(mail.subject);
    expect(parsed.text?.trim()).toBe(mail.text);
    expect(parsed.html?.trim()).toBe(mail.html);
    expect(parsed.messageId).toMatch(/@notify\.test>$/);
    expect(headerOf(parsed, "auto-submitted")).toBe("auto-generated");
    expect(headerOf(parsed, "x-test")).toBe("yes");
    expect(headerOf(parsed, "content-type")).toMatch(/^multipart\/alternative;/);
  });

  it("is a permanent failure without SEND_EMAIL and NOTIFY_FROM (and no dev outbox), a transient one when the send throws", async () => {
    expect(await sendMail(createServices(env), mail)).toEqual({ ok: false, transient: false, error: "not sent: configure SEND_EMAIL and NOTIFY_FROM" });
    const failing = {
      send: async () => {
        throw new Error("upstream busy");
      },
    } as unknown as SendEmail;
    const r = await sendMail(createServices(mailEnv(failing)), mail);
    expect(r).toMatchObject({ ok: false, transient: true });
    // An address the message format cannot carry fails the same way every time: permanent.
    const { binding, sent } = recordingMailer();
    expect(await sendMail(createServices(mailEnv(binding)), { ...mail, to: "not an address" })).toMatchObject({ ok: false, transient: false });
    expect(sent).toHaveLength(0);
  });

  it("keeps the message in the dev outbox, whose page links its HTML part, served sandboxed without scripts; a 404 when DEV_OUTBOX is off", async () => {
    const to = `outbox-${crypto.randomUUID().slice(0, 8)}@people.test`;
    const html = "<p>Digest <script>alert(1)</script></p>";
    expect(await sendMail(createServices({ ...env, DEV_OUTBOX: "true" }), { ...mail, to, html })).toEqual({ ok: true });
    const row = await env.DB.prepare("SELECT id, body, raw FROM dev_outbox WHERE recipient = ?").bind(to).first<{ id: number; body: string; raw: string }>();
    expect(row?.body).toBe(mail.text);
    expect(row?.raw).toContain("multipart/alternative");

    const b = new Browser();
    expect(await (await b.fetch("/dev/outbox")).text()).toContain(`href="/dev/outbox/${row?.id}/html"`);
    const view = await b.fetch(`/dev/outbox/${row?.id}/html`);
    expect(view.status).toBe(200);
    expect(view.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = view.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("sandbox");
    expect(csp).not.toContain("script-src");
    expect((await view.text()).trim()).toBe(html);

    const off = new Browser(undefined, { vars: { DEV_OUTBOX: "false" } });
    expect((await off.fetch(`/dev/outbox/${row?.id}/html`)).status).toBe(404);
  });
});
