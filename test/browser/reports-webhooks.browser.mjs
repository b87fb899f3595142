// Reports, webhooks and alerts in a real browser against wrangler dev: verify a domain, upload a DMARC
// report and see it in the chart, the sources and the stored reports; create a webhook to the local
// receiver (secret shown once), send a test, open the delivery and redeliver it; the alerts page; and
// a viewer who finds no change control. Screenshots and axe-core on every page.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { look, openMailLink, signIn, startStack } from "./harness.mjs";

const stamp = Date.now();
const owner = `rw-owner-${stamp}@example.com`;
const viewer = `rw-viewer-${stamp}@example.com`;
const domain = `reports-${stamp}.example`;
const day = Math.floor(Date.now() / 86_400_000) * 86_400 - 2 * 86_400;
const report = `<?xml version="1.0"?><feedback><report_metadata><org_name>google.com</org_name><email>noreply@google.com</email><report_id>rid-${stamp}</report_id><date_range><begin>${day}</begin><end>${day + 86_399}</end></date_range></report_metadata><policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published><record><row><source_ip>192.0.2.1</source_ip><count>40</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><dkim><domain>${domain}</domain><selector>s1</selector><result>pass</result></dkim><spf><domain>${domain}</domain><result>pass</result></spf></auth_results></record><record><row><source_ip>192.0.2.2</source_ip><count>10</count><policy_evaluated><disposition>none</disposition><dkim>fail</dkim><spf>fail</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><spf><domain>other.example</domain><result>fail</result></spf></auth_results></record></feedback>`;

let stack;
let dmarcPath = "";
let endpointPath = "";

before(async () => {
  stack = await startStack({
    port: 8910,
    zone: { [domain]: { TXT: ["v=spf1 -all"] }, [`_dmarc.${domain}`]: { TXT: ["v=DMARC1; p=none"] } },
    // A throwaway 32-byte key for sealing endpoint secrets on this local server only.
    vars: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_ALLOW_INSECURE: "true", WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") },
  });
});
after(async () => {
  await stack?.stop();
});

test("uploads a DMARC report and sees it in the chart, the sources and the stored reports", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.goto("/domains/new");
  await page.getByLabel("Domain name").fill(domain);
  await page.getByRole("button", { name: "Add domain" }).click();
  await page.getByText("Publish this TXT record").waitFor();
  const value = await page.locator("dd code").nth(2).textContent();
  stack.doh.set(`_emailauth-verify.${domain}`, { TXT: [value] });
  await page.getByRole("button", { name: "Verify now" }).click();
  await page.getByText("Ownership verified.").waitFor();
  dmarcPath = `${new URL(page.url()).pathname.replace(/\/verify$/, "")}/dmarc`;
  await page.goto(dmarcPath);
  await look(page, "dmarc-empty");
  await page.getByLabel("Report file").setInputFiles({ name: "report.xml", mimeType: "text/xml", buffer: Buffer.from(report) });
  await page.getByRole("button", { name: "Upload" }).click();
  await page.getByText(`Report rid-${stamp} was stored with 2 records.`).waitFor();
  assert.ok(await page.locator("rect.bar.fail").count());
  assert.ok((await page.content()).includes("192.0.2.2"));
  await look(page, "dmarc");
  await page.getByRole("link", { name: `rid-${stamp}` }).click();
  await page.getByText("Records (2)").waitFor();
  await look(page, "dmarc-report");
  await context.close();
});

test("creates a webhook to the local receiver, sends a test, opens the delivery and redelivers it", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.getByRole("link", { name: "Webhooks" }).click();
  await look(page, "webhooks-empty");
  await page.getByLabel("Receiver URL").fill(stack.receiverUrl);
  await page.getByLabel("Description (optional)").fill("Local receiver");
  await page.getByRole("checkbox", { name: "webhook.test" }).check();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.waitForLoadState();
  if ((await page.locator("#webhook-secret").count()) === 0) throw new Error(`not created: ${(await page.locator(".notice").allTextContents()).join(" | ")}`);
  const secret = await page.locator("#webhook-secret").textContent();
  assert.match(secret ?? "", /^whsec_/);
  await look(page, "webhook-created");
  await page.getByRole("link", { name: "Go to the endpoint" }).click();
  endpointPath = new URL(page.url()).pathname;
  const before = stack.hooks.length;
  await page.getByRole("button", { name: "Send a test event" }).click();
  await page.getByText("A test event was sent.").waitFor();
  assert.equal(stack.hooks.length, before + 1);
  await look(page, "webhook-endpoint");
  await page.locator("a[href*='/deliveries/']").first().click();
  await page.getByRole("heading", { name: "Payload" }).waitFor();
  await look(page, "webhook-delivery");
  await page.getByRole("button", { name: "Redeliver" }).click();
  await page.getByText("attempted again").waitFor();
  assert.equal(stack.hooks.length, before + 2);
  await context.close();
});

test("the alerts page, and a viewer who sees every page without a change control", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.goto("/alerts");
  await look(page, "alerts");
  await page.goto("/alerts/resolved");
  await look(page, "alerts-resolved");
  await page.goto("/team");
  await page.getByLabel("Email address").fill(viewer);
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.getByText("Invitation sent.").waitFor();
  await context.close();

  const v = await stack.person();
  await openMailLink(v.page, viewer);
  await v.page.getByRole("button", { name: "Accept and sign in" }).click();
  await v.page.waitForURL("**/dashboard");
  await v.page.goto(dmarcPath);
  assert.equal(await v.page.getByRole("button", { name: "Upload" }).count(), 0);
  await v.page.goto("/webhooks");
  assert.equal(await v.page.getByRole("button", { name: "Add endpoint" }).count(), 0);
  await v.page.goto(endpointPath);
  for (const name of ["Send a test event", "Disable", "Rotate secret", "Delete"]) {
    assert.equal(await v.page.getByRole("button", { name }).count(), 0, `a viewer sees no ${name}`);
  }
  await look(v.page, "webhook-endpoint-viewer");
  const refused = await v.page.evaluate(async (path) => {
    const csrf = document.querySelector("input[name=_csrf]")?.getAttribute("value") ?? "";
    const res = await fetch(`${path}/test`, { method: "POST", body: new URLSearchParams({ _csrf: csrf }) });
    return res.status;
  }, endpointPath);
  assert.equal(refused, 403);
  await v.context.close();
});
