// Hosted MTA-STS in a real browser against wrangler dev (issue 32 §1 "Done when"): a person verifies a
// domain (local DNS), turns MTA-STS hosting on from its live MX hosts, sees the two CNAMEs to publish, the
// local DNS publishes them (the id TXT as the operator's zone would serve it), the page shows both live and
// the certificate issued (the local fake of the Cloudflare API, D219); a TLS report without failures
// arrives and one click moves the policy to enforce. A sending MTA's fetch of the policy host gets the
// exact policy. Screenshots at desktop and phone widths and axe-core on every page.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, test } from "node:test";
import { addVerifiedDomain, look, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `sts-owner-${stamp}@example.com`;
const domain = `sts-${stamp}.example`;
const zone = {
  [domain]: {
    MX: [
      { preference: 10, exchange: `mx1.${domain}` },
      { preference: 20, exchange: `mx2.${domain}` },
    ],
  },
  [`mx1.${domain}`]: { A: ["192.0.2.11"] },
  [`mx2.${domain}`]: { A: ["192.0.2.12"] },
};
let stack;

/** GET with a Host header, as a sender fetching https://mta-sts.<domain>/.well-known/mta-sts.txt reaches the Worker. */
function policyFetch(url, host) {
  return new Promise((resolve, reject) => {
    const u = new URL("/.well-known/mta-sts.txt", url);
    const req = request({ hostname: u.hostname, port: u.port, path: u.pathname, headers: { host } }, (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => resolve({ status: res.statusCode, type: res.headers["content-type"], body: Buffer.concat(parts).toString("utf8") }));
    });
    req.on("error", reject);
    req.end();
  });
}

before(async () => {
  stack = await startStack({ port: Number(process.env.BROWSER_PORT ?? 8933), zone });
});
after(async () => {
  await stack?.stop();
});

test("turns hosting on, publishes two CNAMEs, and enforces with one click once TLS reports allow it", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  const domainPath = await addVerifiedDomain(page, stack.doh, domain);
  const hostingPath = `${domainPath}/hosting`;
  await page.goto(hostingPath);
  await page.getByRole("heading", { name: `MTA-STS hosting for ${domain}`, level: 1 }).waitFor();
  assert.equal(await page.locator("#hosting-state").textContent(), "off");
  assert.equal(await page.getByLabel(/mx patterns/).inputValue(), `mx1.${domain}\nmx2.${domain}`);
  await look(page, "mta-sts-hosting-off");

  await page.getByRole("button", { name: "Turn hosting on" }).click();
  await page.getByText("MTA-STS hosting is on, in testing mode.").waitFor();
  const row = (name) => page.locator(`#hosting-records tr[data-record="${name}"]`);
  assert.equal(await row(`mta-sts.${domain}`).getAttribute("data-state"), "missing");
  assert.equal(await row(`_mta-sts.${domain}`).getAttribute("data-state"), "missing");
  const policyTarget = await row(`mta-sts.${domain}`).locator("[data-copy]").getAttribute("data-copy");
  const idTarget = await row(`_mta-sts.${domain}`).locator("[data-copy]").getAttribute("data-copy");
  assert.equal(idTarget, `${domain}.sts-id.localhost`);
  assert.match(await page.locator("#enforce-reason").textContent(), /No TLS report arrived/);
  assert.equal(await page.getByRole("button", { name: "Enforce" }).isDisabled(), true);
  await look(page, "mta-sts-hosting-on");

  // The person publishes the two CNAMEs; the operator's zone holds the id TXT the service keeps there.
  const id = (await page.locator("#policy-id").textContent()).trim();
  stack.doh.set(`mta-sts.${domain}`, { CNAME: policyTarget });
  stack.doh.set(policyTarget, { A: ["192.0.2.80"] });
  stack.doh.set(`_mta-sts.${domain}`, { CNAME: idTarget });
  stack.doh.set(idTarget, { TXT: [`v=STSv1; id=${id}`] });
  // The certificate is asked for again once the CNAME is live, at most every 5 seconds.
  await page.waitForTimeout(5_500);
  await page.reload();
  assert.equal(await row(`mta-sts.${domain}`).getAttribute("data-state"), "ok");
  assert.equal(await row(`_mta-sts.${domain}`).getAttribute("data-state"), "ok");
  assert.match(await page.locator("#hostname-state").textContent(), /hostname active.*certificate active/s);

  // What a sending MTA fetches from the policy host (RFC 8461 §3.3).
  const served = await policyFetch(stack.url, `mta-sts.${domain}`);
  assert.equal(served.status, 200);
  assert.equal(served.type, "text/plain; charset=utf-8");
  assert.equal(served.body, `version: STSv1\r\nmode: testing\r\nmx: mx1.${domain}\r\nmx: mx2.${domain}\r\nmax_age: 604800\r\n`);

  // A TLS report (RFC 8460) with sessions and no failure, posted to the domain's HTTPS intake.
  await page.goto(`${domainPath}/tls`);
  const rua = (await page.locator("code").nth(1).textContent()) ?? "";
  const token = /([0-9a-z]{20})(@|$)/.exec(rua)?.[1];
  assert.ok(token, `a report token in the rua shown: ${rua}`);
  const y = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const report = {
    "organization-name": "Google Inc.",
    "date-range": { "start-datetime": `${y}T00:00:00Z`, "end-datetime": `${y}T23:59:59Z` },
    "contact-info": "smtp-tls-reporting@google.com",
    "report-id": `${y}T00:00:00Z_${domain}`,
    policies: [
      {
        policy: {
          "policy-type": "sts",
          "policy-string": ["version: STSv1", "mode: testing", `mx: mx1.${domain}`, `mx: mx2.${domain}`, "max_age: 604800"],
          "policy-domain": domain,
        },
        summary: { "total-successful-session-count": 1200, "total-failure-session-count": 0 },
      },
    ],
  };
  const res = await fetch(`${stack.url}/api/webhooks/tlsrpt/${token}`, {
    method: "POST",
    headers: { "content-type": "application/tlsrpt+json" },
    body: JSON.stringify(report),
  });
  assert.equal(res.status, 202, await res.text());

  await page.goto(hostingPath);
  assert.match(await page.locator("#enforce-reason").textContent(), /1200 sessions and no failure/);
  await page.getByRole("button", { name: "Enforce" }).click();
  await page.getByText("The policy is now enforced, under a new id.").waitFor();
  const newId = (await page.locator("#policy-id").textContent()).trim();
  assert.notEqual(newId, id);
  assert.match(await page.locator("#policy-text").textContent(), /mode: enforce/);
  // The operator's zone now holds the new id: the person edits no DNS for it.
  stack.doh.set(idTarget, { TXT: [`v=STSv1; id=${newId}`] });
  await page.reload();
  assert.equal(await row(`_mta-sts.${domain}`).getAttribute("data-state"), "ok");
  await look(page, "mta-sts-hosting-enforced");
  const enforced = await policyFetch(stack.url, `mta-sts.${domain}`);
  assert.match(enforced.body, /\r\nmode: enforce\r\n/);
  await context.close();
});
