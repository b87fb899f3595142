// Reports, webhooks and alerts in a real browser against wrangler dev: verify a domain, upload a DMARC
// report and see it in the chart, the sources and the stored reports; SMTP TLS reports posted to the
// HTTPS intake on the TLS page (and their alert, labelled); create a webhook to the local
// receiver (secret shown once), send a test, open the delivery and redeliver it; the alerts page; and
// a viewer who finds no change control. Screenshots and axe-core on every page.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { addVerifiedDomain, look, openMailLink, signIn, startStack } from "./harness.mjs";

const stamp = Date.now();
const owner = `rw-owner-${stamp}@example.com`;
const viewer = `rw-viewer-${stamp}@example.com`;
const domain = `reports-${stamp}.example`;
const day = Math.floor(Date.now() / 86_400_000) * 86_400 - 2 * 86_400;
const report = `<?xml version="1.0"?><feedback><report_metadata><org_name>google.com</org_name><email>noreply@google.com</email><report_id>rid-${stamp}</report_id><date_range><begin>${day}</begin><end>${day + 86_399}</end></date_range></report_metadata><policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published><record><row><source_ip>192.0.2.1</source_ip><count>40</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><dkim><domain>${domain}</domain><selector>s1</selector><result>pass</result></dkim><spf><domain>${domain}</domain><result>pass</result></spf></auth_results></record><record><row><source_ip>192.0.2.2</source_ip><count>10</count><policy_evaluated><disposition>none</disposition><dkim>fail</dkim><spf>fail</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><spf><domain>other.example</domain><result>fail</result></spf></auth_results></record></feedback>`;

let stack;
let dmarcPath = "";
let endpointPath = "";
let ownerSession;

before(async () => {
  stack = await startStack({
    port: Number(process.env.BROWSER_PORT ?? 8910),
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
  dmarcPath = `${await addVerifiedDomain(page, stack.doh, domain)}/dmarc`;
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
  // Kept for the TLS flow: sign-in links are limited to 3 a minute per address.
  ownerSession = { page, context };
});

test("SMTP TLS reports posted to the HTTPS intake show on the TLS page, with the rua to publish before any arrive", async () => {
  const { page, context } = ownerSession;
  const tlsPath = dmarcPath.replace(/\/dmarc$/, "/tls");
  await page.goto(tlsPath.replace(/\/tls$/, ""));
  await page.getByRole("link", { name: "SMTP TLS reports" }).click();
  await page.getByText("No TLS reports arrived for this domain in this period.").waitFor();
  const rua = (await page.locator("code").nth(1).textContent()) ?? "";
  const token = /([0-9a-z]{20})(@|$)/.exec(rua)?.[1];
  assert.ok(token, `a report token in the rua shown: ${rua}`);
  await look(page, "tls-empty");
  // RFC 8460 §4.4's example shape: an MTA-STS policy, 5326 successful and 303 failed sessions yesterday.
  const y = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const tlsReport = {
    "organization-name": "Company-X",
    "date-range": { "start-datetime": `${y}T00:00:00Z`, "end-datetime": `${y}T23:59:59Z` },
    "contact-info": "sts-reporting@company-x.example",
    "report-id": `tls-${stamp}`,
    policies: [
      {
        policy: {
          "policy-type": "sts",
          "policy-string": ["version: STSv1", "mode: enforce", `mx: mx1.${domain}`, `mx: mx2.${domain}`, "max_age: 86400"],
          "policy-domain": domain,
          "mx-host": [`mx1.${domain}`, `mx2.${domain}`],
        },
        summary: { "total-successful-session-count": 5326, "total-failure-session-count": 303 },
        "failure-details": [
          { "result-type": "certificate-expired", "sending-mta-ip": "198.51.100.7", "receiving-mx-hostname": `mx1.${domain}`, "failed-session-count": 200 },
          { "result-type": "starttls-not-supported", "sending-mta-ip": "198.51.100.8", "receiving-mx-hostname": `mx2.${domain}`, "failed-session-count": 103 },
        ],
      },
    ],
  };
  const res = await fetch(`${stack.url}/api/webhooks/tlsrpt/${token}`, {
    method: "POST",
    headers: { "content-type": "application/tlsrpt+json" },
    body: JSON.stringify(tlsReport),
  });
  assert.equal(res.status, 202, await res.text());
  await page.reload();
  await page.getByText("certificate-expired: 200 failed sessions").waitFor();
  assert.ok(await page.locator("rect.bar.fail").count());
  assert.ok((await page.content()).includes("94.6%"));
  await look(page, "tls");
  await page.getByLabel("Period").selectOption("7");
  await page.waitForURL(/days=7/);
  await page.getByText("starttls-not-supported: 103 failed sessions").waitFor();
  // The report raised tls_failure (303 of 5629 sessions, over 5 %): labelled, and linked to this page.
  await page.goto("/alerts");
  await page.getByText("SMTP TLS failures").first().waitFor();
  await page.getByRole("link", { name: "SMTP TLS reports, with the advice per failure type" }).first().click();
  await page.waitForURL(`**${tlsPath}`);
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
