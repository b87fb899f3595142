// Monitoring in a real browser against wrangler dev, DNS from the local DoH server: add a domain, verify
// it, watch the queued check finish (the page refreshes itself), see the grade and a fix and copy it,
// add a DKIM selector and open its key history, use the DKIM tools and intel; a viewer finds every
// change control absent and a forged change refused. Screenshots and axe-core on every page.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, test } from "node:test";
import { look, openMailLink, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `mon-owner-${stamp}@example.com`;
const viewer = `mon-viewer-${stamp}@example.com`;
const domain = `mon-${stamp}.example`;
const { publicKey } = generateKeyPairSync("ed25519");
const dkimValue = `v=DKIM1; k=ed25519; p=${publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("base64")}`;

// p=none without rua: the posture has a DMARC fix to paste.
const zone = {
  [domain]: { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"], MX: [{ preference: 10, exchange: `mx.${domain}` }] },
  [`mx.${domain}`]: { A: ["192.0.2.10"] },
  [`_dmarc.${domain}`]: { TXT: ["v=DMARC1; p=none"] },
  [`google._domainkey.${domain}`]: { TXT: [dkimValue] },
};

let stack;
let domainPath = "";

before(async () => {
  stack = await startStack({ port: 8900, zone });
});
after(async () => {
  await stack?.stop();
});

test("adds a domain, verifies it, waits for the queued check, copies a fix, and resolves the alert a DNS change raises", async () => {
  const { page, context } = await stack.person();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, owner);
  await page.getByRole("link", { name: "Domains", exact: true }).click();
  await look(page, "domains-empty");
  await page.getByRole("link", { name: "Add a domain" }).first().click();
  await look(page, "domain-new");
  await page.getByLabel("Domain name").fill(domain);
  await page.getByRole("button", { name: "Add domain" }).click();
  await page.getByText("Publish this TXT record").waitFor();
  await look(page, "domain-verify");

  // Before the record exists: "not verified yet", never an error.
  await page.getByRole("button", { name: "Verify now" }).click();
  await page.getByText(/Not verified yet: no TXT record/).waitFor();
  const value = await page.locator("dd code").nth(2).textContent();
  assert.match(value ?? "", /^emailauth-verify=[0-9A-Za-z]{32}$/);
  stack.doh.set(`_emailauth-verify.${domain}`, { TXT: [value] });
  await page.getByRole("button", { name: "Verify now" }).click();
  await page.getByText("Ownership verified.").waitFor();
  domainPath = new URL(page.url()).pathname;
  // The check runs on the local queue; the page reloads itself until the posture is there.
  await page.locator("#part-spf").waitFor({ timeout: 120_000 });
  assert.equal(await page.locator("[data-refresh-after]").count(), 0, "no refresh once the result is in");
  await page.locator(".grade").first().waitFor();
  await look(page, "domain-page");

  // The plan gives the records to paste (docs/scoring.md "Remediation plan").
  const fix = page.locator("#plan .copyable").first();
  const text = await fix.locator("code").textContent();
  await fix.getByRole("button").click();
  await fix.getByRole("button", { name: /Copy|Copied/ }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);

  await page.goto("/domains");
  assert.ok((await page.content()).includes(domain));
  await look(page, "domains-list");

  // The SPF record disappears: the next check records the change and raises a drift alert.
  stack.doh.set(domain, { MX: [{ preference: 10, exchange: `mx.${domain}` }] });
  await page.goto(domainPath);
  await page.getByRole("button", { name: "Check now" }).click();
  const deadline = Date.now() + 120_000;
  for (;;) {
    await page.goto("/alerts");
    if ((await page.getByRole("button", { name: /^Resolve: / }).count()) > 0) break;
    assert.ok(Date.now() < deadline, "an alert appears after the check");
    await page.waitForTimeout(2000);
  }
  await look(page, "alerts-open");
  await page
    .getByRole("button", { name: /^Resolve: / })
    .first()
    .click();
  await page.getByText("The alert was resolved.").waitFor();
  await look(page, "alerts-resolved");
  await page.goto(domainPath);
  await page.locator("#part-spf").waitFor();
  await context.close();
});

test("adds a DKIM selector, opens its key history, and uses the DKIM tools and intel", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.goto("/dkim");
  await page.getByLabel(`Add a selector to ${domain}`).fill("google");
  await page.getByRole("button", { name: "Add and look up" }).click();
  // The first check may have discovered it already (docs/decisions.md D19): either notice will do.
  await page.getByText(/Selector added and looked up\.|already in the inventory/).waitFor();
  await look(page, "dkim");
  await page.getByRole("link", { name: "google", exact: true }).click();
  await page.getByRole("heading", { name: "Key history" }).waitFor();
  await look(page, "dkim-selector");

  await page.goto("/dkim#tools");
  await page.getByLabel("Domain", { exact: true }).first().fill(domain);
  await page.getByLabel(/Selectors/).fill("google");
  await page.getByRole("button", { name: "Look up", exact: true }).click();
  await page.getByRole("heading", { name: `Selectors of ${domain}` }).waitFor();
  await look(page, "dkim-lookup");
  await page.locator("#gen-domain").fill(domain);
  await page.locator("#gen-selector").fill("mail2026");
  await page.getByLabel("Algorithm").selectOption("ed25519");
  await page.getByRole("button", { name: "Generate", exact: true }).click();
  await page.locator("#private-key").waitFor();
  assert.match((await page.locator("#private-key").textContent()) ?? "", /BEGIN PRIVATE KEY/);
  await look(page, "dkim-generate");

  await page.goto("/intel");
  await look(page, "intel");
  await page.getByLabel("Any domain").fill(domain);
  await page.getByRole("button", { name: "Analyze" }).click();
  await page.locator("#part-dmarc").waitFor();
  await look(page, "intel-domain");
  await page.getByLabel(/Addresses, one per line/).fill(`jane@${domain}\nsupport@${domain}\nnot-an-address`);
  await page.getByRole("button", { name: "Check", exact: true }).click();
  await page.getByRole("heading", { name: "3 addresses" }).waitFor();
  await look(page, "intel-emails");
  await context.close();
});

test("a viewer sees every monitoring page without change controls, and a forged change is refused", async () => {
  const o = await stack.person();
  await signIn(o.page, owner);
  await o.page.goto("/team");
  await o.page.getByLabel("Email address").fill(viewer);
  await o.page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await o.page.getByRole("button", { name: "Send invitation" }).click();
  await o.page.getByText("Invitation sent.").waitFor();
  await o.context.close();

  const { page, context } = await stack.person();
  await openMailLink(page, viewer);
  await page.getByRole("button", { name: "Accept and sign in" }).click();
  await page.waitForURL("**/dashboard");
  await page.goto("/domains");
  assert.equal(await page.getByRole("link", { name: "Add a domain" }).count(), 0);
  await look(page, "viewer-domains");
  await page.goto(domainPath);
  for (const name of [/Check now/, /^Delete /]) assert.equal(await page.getByRole("button", { name }).count(), 0);
  await look(page, "viewer-domain-page");
  await page.goto("/dkim");
  assert.equal(await page.getByRole("button", { name: "Add and look up" }).count(), 0);
  assert.equal(await page.getByRole("button", { name: /^Remove/ }).count(), 0);
  await look(page, "viewer-dkim");
  const status = await page.evaluate(async (path) => {
    const csrf = document.querySelector('input[name="_csrf"]').value;
    const res = await fetch(`${path}/check`, { method: "POST", body: new URLSearchParams({ _csrf: csrf }), redirect: "manual" });
    return res.status;
  }, domainPath);
  assert.equal(status, 403);
  await context.close();
});
