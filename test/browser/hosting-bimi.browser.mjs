// Hosted BIMI in a real browser against wrangler dev (issue 32 §2): a person verifies paypal.com (local DNS),
// opens its BIMI hosting page, uploads a logo that breaks SVG Tiny PS and reads every fix, uploads the
// logo PayPal's VMC carries and the VMC itself, sees the logo previewed in a circle and a square, the
// record to publish, the certificate checks and why Gmail would not show the logo (the VMC ended on
// 2025-09-08). Screenshots at desktop and phone widths and axe-core on every page.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { addVerifiedDomain, look, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `bimi-owner-${stamp}@example.com`;
const fixture = (name) => readFileSync(new URL(`../fixtures/bimi-hosting/${name}`, import.meta.url));
let stack;

before(async () => {
  stack = await startStack({
    port: Number(process.env.BROWSER_PORT ?? 8931),
    zone: { "_dmarc.paypal.com": { TXT: ["v=DMARC1; p=reject; rua=mailto:d@paypal.com"] }, "paypal.com": { TXT: ["v=spf1 -all"] } },
  });
});
after(async () => {
  await stack?.stop();
});

test("uploads a logo and a VMC, reads the report and the preview", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  const domainPath = await addVerifiedDomain(page, stack.doh, "paypal.com");
  await page.goto(`${domainPath}/hosting/bimi`);
  await page.getByRole("heading", { name: "BIMI logo hosting for paypal.com", level: 1 }).waitFor();
  assert.equal(await page.locator('#gmail-requirements tr[data-row="mark_certificate"]').getAttribute("data-state"), "not_met");
  await look(page, "bimi-hosting-empty");

  // A logo that breaks the profile: refused, with every problem and its fix.
  const bad = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>PayPal</title><script>alert(1)</script></svg>';
  await page.getByLabel("Logo file (.svg)").setInputFiles({ name: "bad.svg", mimeType: "image/svg+xml", buffer: Buffer.from(bad) });
  await page.getByRole("button", { name: "Upload logo" }).click();
  await page.locator("#upload-errors").waitFor();
  const errors = await page.locator("#upload-errors").textContent();
  assert.match(errors, /does not follow SVG Tiny PS/);
  assert.match(errors, /Fix: Add version="1.2" baseProfile="tiny-ps"/);
  assert.match(errors, /script/i);
  await look(page, "bimi-hosting-refused");

  await page.getByLabel("Logo file (.svg)").setInputFiles({ name: "paypal.svg", mimeType: "image/svg+xml", buffer: fixture("paypal-vmc.svg") });
  await page.getByRole("button", { name: "Upload logo" }).click();
  await page.getByText("The logo is uploaded and served.").waitFor();
  // The preview is drawn from the public URL and actually loads.
  const img = page.locator("#logo-preview img.circle.large");
  await img.waitFor();
  assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), "the logo preview loaded");

  await page.getByLabel(/Certificate file/).setInputFiles({ name: "paypal.pem", mimeType: "application/x-pem-file", buffer: fixture("paypal-vmc.pem") });
  await page.getByRole("button", { name: "Upload certificate" }).click();
  await page.getByText("The certificate is uploaded and validated").waitFor();

  const state = (row) => page.locator(`#gmail-requirements tr[data-row="${row}"]`).getAttribute("data-state");
  assert.equal(await state("logo_matches_certificate"), "met");
  assert.equal(await state("logo_profile"), "met");
  // Today is after the VMC's end: the report says so, with the fix.
  assert.equal(await state("certificate_dates"), "not_met");
  assert.match(await page.locator('#gmail-requirements tr[data-row="certificate_dates"]').textContent(), /Expired on 2025-09-08.*Renew the certificate/);
  assert.match(await page.locator("#gmail-summary").textContent(), /^Gmail would not show the logo/);
  assert.match(await page.locator("#certificate-summary").textContent(), /not valid.*VMC · PayPal, Inc\./);
  assert.equal(await page.locator('#certificate-checks tr[data-check="chain"] .badge').textContent(), "ok");
  const record = await page.locator(".copyable code").first().textContent();
  assert.match(record, /^v=BIMI1; l=http:\/\/127\.0\.0\.1:\d+\/bimi\/paypal\.com\/default\.svg; a=http:\/\/127\.0\.0\.1:\d+\/bimi\/paypal\.com\/default\.pem$/);
  await page.locator("#logo-preview").scrollIntoViewIfNeeded();
  await look(page, "bimi-hosting-report");
  await context.close();
});
