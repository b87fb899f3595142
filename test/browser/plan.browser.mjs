// The remediation plan in a real browser against wrangler dev (issue 29): a weak domain (SPF over the lookup
// limit through nested provider includes, DMARC p=none without rua) shows its plan first; the records of the
// steps that can be taken now are pasted into the local DNS server as the page gives them, "Check now" runs
// the check again, and the grade rises to the one the plan projected. Screenshots at 1280 and 390 px, axe.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { addVerifiedDomain, look, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `plan-owner-${stamp}@example.com`;
const domain = `plan-${stamp}.example`;
const REPORTS = "reports.plan.test";

// Eleven DNS-querying terms through provider includes nested the way the big platforms publish them.
const zone = {
  [domain]: {
    TXT: ["v=spf1 include:_spf.mailer-a.test include:_spf.mailer-b.test include:spf.crm.test mx a ~all"],
    MX: [{ preference: 10, exchange: `mx.${domain}` }],
    A: ["198.51.100.5"],
  },
  [`mx.${domain}`]: { A: ["198.51.100.10"] },
  [`_dmarc.${domain}`]: { TXT: ["v=DMARC1; p=none"] },
  "_spf.mailer-a.test": { TXT: ["v=spf1 include:_netblocks.mailer-a.test include:_netblocks2.mailer-a.test include:_netblocks3.mailer-a.test ~all"] },
  "_netblocks.mailer-a.test": { TXT: ["v=spf1 ip4:203.0.113.0/25 ip6:2001:db8:1::/48 ~all"] },
  "_netblocks2.mailer-a.test": { TXT: ["v=spf1 ip4:203.0.113.128/25 ~all"] },
  "_netblocks3.mailer-a.test": { TXT: ["v=spf1 ip6:2001:db8:2::/48 ~all"] },
  "_spf.mailer-b.test": { TXT: ["v=spf1 include:spf1.mailer-b.test include:spf2.mailer-b.test -all"] },
  "spf1.mailer-b.test": { TXT: ["v=spf1 ip4:192.0.2.0/26 -all"] },
  "spf2.mailer-b.test": { TXT: ["v=spf1 ip4:192.0.2.64/26 -all"] },
  "spf.crm.test": { TXT: ["v=spf1 include:mail.crm.test ~all"] },
  "mail.crm.test": { TXT: ["v=spf1 ip4:198.18.0.0/24 ~all"] },
  // The service's report domain, set up as the README tells an operator.
  [REPORTS]: { MX: [{ preference: 10, exchange: `mx.${REPORTS}` }] },
  [`mx.${REPORTS}`]: { A: ["198.51.100.99"] },
  [`${domain}._report._dmarc.${REPORTS}`]: { TXT: ["v=DMARC1"] },
};

let stack;
before(async () => {
  stack = await startStack({ port: 8970, zone, vars: { REPORT_DOMAIN: REPORTS } });
});
after(async () => {
  await stack?.stop();
});

/** Publishes a TXT record as a DNS host would: it replaces the record of its kind (same v= tag) at that name. */
function publishTxt(host, value) {
  const kind = (v) => (/^v=[^;\s]+/i.exec(v)?.[0] ?? v).toLowerCase();
  const current = stack.doh.get(host) ?? {};
  stack.doh.set(host, { ...current, TXT: [...(current.TXT ?? []).filter((t) => kind(String(t)) !== kind(value)), value] });
}

const scoreOf = async (page) => Number(await page.locator(".domain-stats strong").first().textContent());

test("a weak domain's plan, pasted step by step into DNS, raises the grade as projected", async () => {
  const { page } = await stack.person();
  await signIn(page, owner);
  const domainPath = await addVerifiedDomain(page, stack.doh, domain);
  await page.locator("#plan-h").waitFor({ timeout: 120_000 });
  await page.locator("#part-spf").waitFor({ timeout: 120_000 });
  const before = await scoreOf(page);
  await look(page, "plan-before");

  // The plan comes before the posture, and its first step fixes SPF with records within the limits.
  const order = await page.evaluate(() => ["plan-h", "posture-h"].map((id) => document.getElementById(id)?.getBoundingClientRect().top ?? 0));
  assert.ok(order[0] < order[1], "the plan is above the posture");
  const steps = page.locator(".plan-steps > li");
  assert.match((await steps.first().locator("h3").textContent()) ?? "", /SPF/);

  // Paste every record of every step that can be taken now, as the page shows it.
  let expected = before;
  for (const step of await steps.all()) {
    const gate = (await step.locator("h3 .badge").textContent())?.trim();
    if (gate !== "Do now") continue;
    for (const record of await step.locator("dl").all()) {
      const codes = await record.locator("code").allTextContents();
      const [host, type] = codes;
      assert.equal(type, "TXT");
      // A value split into strings is shown quoted; the DNS host joins them.
      const shown = codes[2] ?? "";
      const joined = shown.startsWith('"')
        ? shown
            .match(/"([^"]*)"/g)
            .map((s) => s.slice(1, -1))
            .join("")
        : shown;
      publishTxt(host, joined);
    }
    expected = Number(/After this step: (\d+)/.exec((await step.locator("p.small.muted").last().textContent()) ?? "")?.[1] ?? expected);
  }
  assert.ok(expected > before, `the plan projects a higher score (${before} -> ${expected})`);

  await page.goto(domainPath);
  await page.getByRole("button", { name: "Check now" }).click();
  const deadline = Date.now() + 120_000;
  let after = before;
  while (Date.now() < deadline) {
    await page.goto(domainPath);
    after = await scoreOf(page);
    if (after !== before && (await page.locator("[data-refresh-after]").count()) === 0) break;
    await page.waitForTimeout(1000);
  }
  assert.equal(after, expected, "the score after the check is the one the plan projected");
  await look(page, "plan-after");
});
