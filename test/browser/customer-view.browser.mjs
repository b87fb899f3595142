// The dashboard as a customer sees it, at 1280 and 390 px, in a real browser against wrangler dev
// (docs/decisions.md D167-D169): "Check your email" names the address and offers a resend; refused
// forms are said on the form (a domain name, a report file, a webhook without events); the domain page
// shows its changes in words near the top and the queued check as pending; the main action of a row
// (Resolve, Revoke) and the DMARC pass/fail figures stay on screen at phone width; chart labels stay
// readable; "Copied" is announced; the favicon is served. Screenshots and axe-core on every page.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { addVerifiedDomain, look, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `cv-owner-${stamp}@example.com`;
const domain = `cv-${stamp}.example`;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const day = Math.floor(Date.now() / 86_400_000) * 86_400 - 2 * 86_400;
const record = (ip, count, pass) =>
  `<record><row><source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated><disposition>none</disposition><dkim>${pass ? "pass" : "fail"}</dkim><spf>${pass ? "pass" : "fail"}</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results>${pass ? `<dkim><domain>${domain}</domain><selector>s1</selector><result>pass</result></dkim>` : ""}<spf><domain>${pass ? domain : "other.example"}</domain><result>${pass ? "pass" : "fail"}</result></spf></auth_results></record>`;
const report = `<?xml version="1.0"?><feedback><report_metadata><org_name>google.com</org_name><email>noreply@google.com</email><report_id>cv-${stamp}</report_id><date_range><begin>${day}</begin><end>${day + 86_399}</end></date_range></report_metadata><policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>reject</p><sp>none</sp><pct>100</pct></policy_published>${record("192.0.2.1", 40, true)}${record("192.0.2.2", 10, false)}</feedback>`;

const zone = {
  [domain]: { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"], MX: [{ preference: 10, exchange: `mx.${domain}` }] },
  [`mx.${domain}`]: { A: ["192.0.2.10"] },
  [`_dmarc.${domain}`]: { TXT: ["v=DMARC1; p=reject"] },
};

let stack;
let domainPath = "";

before(async () => {
  stack = await startStack({ port: 8950, zone });
});
after(async () => {
  await stack?.stop();
});

/** At phone width, the element is wholly on screen: not cut off, not inside a sideways scroller. */
async function onScreenAtPhone(page, locator, what) {
  await page.setViewportSize(PHONE);
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  assert.ok(box, `${what} is rendered`);
  assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${what} is within the 390 px screen (x ${box.x}, width ${box.width})`);
  await page.setViewportSize(DESKTOP);
}

test("a customer's way through the dashboard at desktop and phone widths", async () => {
  const { page, context } = await stack.person();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);

  // "Check your email" names the address and offers the same request again.
  await page.goto("/sign-in");
  await page.getByLabel("Email address", { exact: true }).fill(owner);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await page.getByRole("heading", { name: "Check your email" }).waitFor();
  assert.ok((await page.locator("main").textContent()).includes(owner));
  await page.getByRole("button", { name: "send the link again" }).waitFor();
  await look(page, "cv-check-email");
  await signIn(page, owner);

  const icon = await page.request.get("/favicon.ico");
  assert.equal(icon.status(), 200);
  assert.match(icon.headers()["cache-control"] ?? "", /max-age=86400/);

  // A bad domain name is said on the form, in words, with what was typed.
  await page.goto("/domains/new");
  await page.getByLabel("Domain name").fill("my shop");
  await page.getByRole("button", { name: "Add domain" }).click();
  await page.getByText("is not a domain name we can monitor").waitFor();
  assert.equal(await page.getByLabel("Domain name").inputValue(), "my shop");
  await look(page, "cv-domain-new-error");

  domainPath = await addVerifiedDomain(page, stack.doh, domain);
  if ((await page.locator("[data-refresh-after]").count()) > 0) {
    // Queued: the button looks and is disabled, and the notice has no internal id.
    assert.equal(await page.getByRole("button", { name: "Check queued…" }).isDisabled(), true);
    assert.doesNotMatch((await page.locator("[data-refresh-after]").textContent()) ?? "", /chk_/);
    await look(page, "cv-domain-pending");
  }
  await page.locator("#part-spf").waitFor({ timeout: 120_000 });
  // The self-refresh drops the one-time flag: "first check queued" is not said once the check is done.
  assert.doesNotMatch((await page.locator("main").textContent()) ?? "", /first check is queued/);
  await look(page, "cv-domain-page");

  // Copy: the button's name becomes "Copied" and the live region says it.
  const copy = page.getByRole("button", { name: "Copy DMARC report address" });
  await copy.click();
  await page.locator("#live-status", { hasText: "Copied" }).waitFor();
  await page.getByRole("button", { name: "Copied" }).first().waitFor();

  // The DMARC policy is weakened: the next check records one change, in words, and raises an alert.
  stack.doh.set(`_dmarc.${domain}`, { TXT: ["v=DMARC1; p=none"] });
  await page.getByRole("button", { name: "Check now" }).click();
  const deadline = Date.now() + 120_000;
  for (;;) {
    await page.goto("/alerts");
    if ((await page.getByRole("button", { name: /^Resolve: / }).count()) > 0) break;
    assert.ok(Date.now() < deadline, "an alert appears after the check");
    await page.waitForTimeout(2000);
  }
  assert.ok((await page.locator("main").textContent()).includes(`DMARC policy changed from reject to none on ${domain}`));
  await onScreenAtPhone(page, page.getByRole("button", { name: /^Resolve: / }).first(), "Resolve");
  await look(page, "cv-alerts");

  await page.goto(domainPath);
  const changes = page.locator("#changes");
  assert.equal(await changes.getByText("DMARC policy changed from reject to none").count(), 1, "one entry for the change");
  assert.equal(await page.locator("#changes li.change").count(), 1);
  // Chart labels are page text: at least 11 px on a phone.
  await page.setViewportSize(PHONE);
  const sizes = await page.locator(".chart .x-axis span, .chart .y-axis span").evaluateAll((els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize)));
  assert.ok(sizes.length > 0 && sizes.every((s) => s >= 11), `chart labels ${sizes.join(", ")} px`);
  assert.equal(await page.locator(".chart svg text").count(), 0, "no text inside the stretched SVG");
  await page.setViewportSize(DESKTOP);
  await look(page, "cv-domain-changes");

  // A file that is not a report: said on the upload form. Then a real report, and its sources on a phone.
  await page.goto(`${domainPath}/dmarc`);
  await page.getByLabel("Report file").setInputFiles({ name: "notes.xml", mimeType: "text/xml", buffer: Buffer.from("<html><body>notes</body></html>") });
  await page.getByRole("button", { name: "Upload" }).click();
  await page.getByText("That file is not a DMARC aggregate report we can read.").waitFor();
  assert.doesNotMatch((await page.locator("main").textContent()) ?? "", /not_a_report|Check your input/);
  await look(page, "cv-dmarc-upload-error");
  await page.getByLabel("Report file").setInputFiles({ name: "report.xml", mimeType: "text/xml", buffer: Buffer.from(report) });
  await page.getByRole("button", { name: "Upload" }).click();
  await page.getByText(`Report cv-${stamp} was stored with 2 records.`).waitFor();
  await look(page, "cv-dmarc");
  await page.goto(`${domainPath}/dmarc/sources`);
  const failing = page.locator("tr", { hasText: "192.0.2.2" });
  await onScreenAtPhone(page, failing.locator('td[data-label="DMARC fail"]'), "DMARC fail of 192.0.2.2");
  await onScreenAtPhone(page, failing.locator('td[data-label="DMARC pass"]'), "DMARC pass of 192.0.2.2");
  await look(page, "cv-dmarc-sources");

  // Tokens: Revoke stays on screen at phone width.
  await page.goto("/tokens");
  await page.getByLabel("Name").fill("Phone");
  await page.getByLabel("Scope").selectOption("read_only");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.goto("/tokens");
  await onScreenAtPhone(page, page.getByRole("button", { name: "Revoke Phone" }), "Revoke");
  await look(page, "cv-tokens");

  // Webhooks: grouped events in words, the alert-worthy ones ticked; none ticked is said on the form.
  await page.goto("/webhooks");
  assert.equal(await page.getByRole("checkbox", { name: /An alert is raised/ }).isChecked(), true);
  assert.equal(await page.getByRole("checkbox", { name: /Every finished check/ }).isChecked(), false);
  await look(page, "cv-webhooks");
  await page.getByLabel("Receiver URL").fill("https://hooks.example.com/in");
  const ticked = page.locator('input[name="events"]:checked');
  while ((await ticked.count()) > 0) await ticked.first().uncheck();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.getByText("Choose at least one event to send, or every event.").waitFor();
  assert.equal(await page.getByLabel("Receiver URL").inputValue(), "https://hooks.example.com/in");
  await look(page, "cv-webhooks-error");
  await context.close();
});
