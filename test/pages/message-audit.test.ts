// The message audit page through the Worker's real fetch export: a signed-out visitor goes to sign-in;
// an uploaded .eml and a pasted header block show the verdicts and the three provider tables; an
// empty form is a 422 page; a form without its CSRF token is refused.
import { describe, expect, it } from "vitest";
import { generateKeyPair } from "../../src/core/dkim/generate";
import { signMessage } from "../../src/core/dkim/sign";
import { Browser, signedInOwner } from "../support/browser";
import { installDohStub } from "../support/doh-stub";

const PATH = "/tools/message-audit";

async function submit(b: Browser, fields: Record<string, string>, file?: { name: string; content: string }, csrf: string | null = "page") {
  const form = new FormData();
  if (csrf !== null) form.set("_csrf", await b.csrf(PATH));
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (file) form.set("eml", new File([file.content], file.name, { type: "message/rfc822" }));
  const req = new Request("https://x.test", { method: "POST", body: form });
  return b.fetch(PATH, { method: "POST", body: new Uint8Array(await req.arrayBuffer()), headers: { "content-type": req.headers.get("content-type") ?? "" } });
}

describe("the message audit page", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    const res = await new Browser().fetch(PATH);
    expect(res.status).toBe(303);
  });

  it("audits an uploaded .eml: verdicts and the Gmail, Yahoo and Microsoft tables with fixes", async () => {
    const { b } = await signedInOwner("ma");
    const k = await generateKeyPair({ domain: "page.test", selector: "p1", algorithm: "ed25519" });
    if (!k.ok) throw new Error(k.error);
    installDohStub({
      "page.test": { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] },
      "_dmarc.page.test": { TXT: ["v=DMARC1; p=none"] },
      [k.value.dns.host]: { TXT: [k.value.dns.value] },
    });
    const raw = ["From: <n@page.test>", "Date: Sun, 01 Mar 2026 11:59:00 +0000", "Message-ID: <1@page.test>", "Precedence: bulk", "", "hi", ""].join("\r\n");
    const signed = await signMessage(raw, { domain: "page.test", selector: "p1", privateKey: k.value.private_key_pem, algorithm: "ed25519-sha256" });
    if (!signed.ok) throw new Error(signed.error);
    const eml = `Received: from out.page.test (out.page.test [192.0.2.7]) by mx.page-inbox.test with ESMTP id 1; Sun, 01 Mar 2026 11:59:01 +0000\r\nReturn-Path: <b@page.test>\r\n${signed.value}`;
    const res = await submit(b, { trusted_authserv_id: "mx.page-inbox.test" }, { name: "spam.eml", content: eml });
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const p of ["gmail", "yahoo", "microsoft"]) expect(html).toContain(`id="provider-${p}"`);
    expect(html).toMatch(/<tr data-row="tls" data-state="not_met">/);
    expect(html).toMatch(/<tr data-row="one_click" data-state="not_met">/);
    expect(html).toMatch(/<tr data-row="dmarc_alignment" data-state="met">/);
    expect(html).toContain("Enable STARTTLS");
    expect(html).toContain("from the Received field");
  });

  it("an empty form is a 422 page; no CSRF token is refused", async () => {
    const { b } = await signedInOwner("ma");
    installDohStub({});
    const empty = await submit(b, { message: "  " });
    expect(empty.status).toBe(422);
    expect(await empty.text()).toContain("Paste a message");
    const forged = await submit(b, { message: "From: a@b.test\r\n\r\nx" }, undefined, null);
    expect(forged.status).toBe(403);
  });
});
