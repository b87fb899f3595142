// The message audit in a real browser against wrangler dev (issue 31): a person opens "Message audit"
// from the navigation, uploads an .eml of a newsletter that landed in spam, names their receiving
// server, and reads the Gmail, Yahoo and Microsoft tables: which rule the message breaks (TLS, reverse DNS,
// one-click unsubscribe) and the fix, next to the rules it meets (SPF, DKIM, DMARC). Screenshots at
// desktop and phone widths and axe-core on every page.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateKeyPair } from "../../src/core/dkim/generate.ts";
import { signMessage } from "../../src/core/dkim/sign.ts";
import { look, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `ma-owner-${stamp}@example.com`;
const domain = `ma-${stamp}.example`;
let key;
let stack;

before(async () => {
  const k = await generateKeyPair({ domain, selector: "s1", algorithm: "ed25519" });
  assert.ok(k.ok);
  key = k.value;
  const zone = {
    [domain]: { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] },
    [`_dmarc.${domain}`]: { TXT: ["v=DMARC1; p=quarantine"] },
    [key.dns.host]: { TXT: [key.dns.value] },
  };
  stack = await startStack({ port: Number(process.env.BROWSER_PORT ?? 8930), zone });
});
after(async () => {
  await stack?.stop();
});

async function spamEml() {
  const body = [
    `From: News <news@${domain}>`,
    "To: reader@inbox.example",
    "Subject: Spring sale",
    "Date: Sun, 01 Mar 2026 11:59:00 +0000",
    `Message-ID: <sale-1@${domain}>`,
    `List-Unsubscribe: <https://${domain}/u/1>`,
    "",
    "Everything half price.",
    "",
  ].join("\r\n");
  const signed = await signMessage(body, { domain, selector: "s1", privateKey: key.private_key_pem, algorithm: "ed25519-sha256" });
  assert.ok(signed.ok);
  return [
    `Received: from out.${domain} (out.${domain} [192.0.2.25]) by mx.inbox.example with ESMTP id q1; Sun, 01 Mar 2026 11:59:02 +0000`,
    `Return-Path: <bounce@${domain}>`,
    signed.value,
  ].join("\r\n");
}

test("uploads an .eml and reads, per provider, the rules it breaks and the fixes", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.getByRole("link", { name: "Message audit" }).click();
  await page.getByRole("heading", { name: "Message audit", level: 1 }).waitFor();
  await look(page, "message-audit-empty");

  await page.getByLabel("…or upload an .eml file").setInputFiles({ name: "spring-sale.eml", mimeType: "message/rfc822", buffer: Buffer.from(await spamEml()) });
  await page.getByLabel("Your receiving server (authserv-id, e.g. mx.google.com)").fill("mx.inbox.example");
  await page.getByRole("button", { name: "Audit" }).click();
  await page.locator("#provider-gmail").waitFor();

  const state = (provider, row) => page.locator(`#provider-${provider} tr[data-row="${row}"]`).getAttribute("data-state");
  // Authentication passes: SPF by ip4:, DKIM d= the From domain, DMARC aligned.
  for (const provider of ["gmail", "yahoo", "microsoft"]) {
    assert.equal(await state(provider, "spf_pass"), "met", `${provider} SPF`);
    assert.equal(await state(provider, "dkim_pass"), "met", `${provider} DKIM`);
    assert.equal(await state(provider, "dmarc_alignment"), "met", `${provider} alignment`);
  }
  // What breaks Gmail's rules: a plain ESMTP last hop, no PTR for 192.0.2.25, and a marketing message
  // (List-Unsubscribe) without RFC 8058 one-click.
  assert.equal(await state("gmail", "tls"), "not_met");
  assert.equal(await state("gmail", "fcrdns"), "not_met");
  assert.equal(await state("gmail", "one_click"), "not_met");
  const tlsRow = page.locator('#provider-gmail tr[data-row="tls"]');
  assert.match(await tlsRow.textContent(), /Enable STARTTLS/);
  const oneClick = page.locator('#provider-gmail tr[data-row="one_click"]');
  assert.match(await oneClick.textContent(), /List-Unsubscribe-Post/);
  // Only Gmail publishes the TLS rule.
  assert.match(await page.locator('#provider-yahoo tr[data-row="tls"]').textContent(), /not on its page/);
  assert.match(await page.locator("#provider-gmail-h").textContent(), /3 required rule\(s\) broken/);
  assert.match(await page.locator("#verdict-dmarc").textContent(), /pass/);
  await look(page, "message-audit-result");
  await context.close();
});
