// Notifications in a real browser against wrangler dev (issue 30): add a Slack channel pointing at the local
// receiver, send a test and see it arrive there and in the delivery log; opt in to a members email channel;
// confirm an outside address by its mailed link; then raise a real alert by removing the SPF record from the
// local DNS and running a check, and see the grouped Block Kit message arrive after the grouping window
// (src/services/notify/route.ts, GROUP_WINDOW_SECONDS) and in the delivery log with the alerts it carried.
// Screenshots at desktop and phone widths and axe-core on every page.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { addVerifiedDomain, look, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `nt-owner-${stamp}@example.com`;
const domain = `nt-${stamp}.example`;
const zone = {
  [domain]: { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"], MX: [{ preference: 10, exchange: `mx.${domain}` }] },
  [`mx.${domain}`]: { A: ["192.0.2.10"] },
  [`_dmarc.${domain}`]: { TXT: ["v=DMARC1; p=none"] },
};

let stack;

/** Waits (up to a minute) for the owner's mail the filter picks in the dev outbox, then opens its HTML part. */
async function openMailHtml(page, pick, what) {
  const until = Date.now() + 60_000;
  for (;;) {
    await page.goto("/dev/outbox");
    const mail = pick(page.locator("article.mail", { has: page.locator(".mail-to", { hasText: owner }) })).first();
    if ((await mail.count()) > 0) {
      // The outbox serves a mail's HTML sandboxed (no scripts at all), where Playwright cannot look or run axe;
      // the same HTML is rendered here in a plain page, as a mail client shows it.
      const href = (await mail.locator("a.mail-html").getAttribute("href")) ?? "";
      const res = await page.request.get(href);
      assert.equal(res.status(), 200);
      assert.match(res.headers()["content-security-policy"] ?? "", /sandbox/);
      // In a blank page: written into the outbox page, the site's own CSP would still apply and block the mail's inline styles.
      await page.goto("about:blank");
      return page.setContent(await res.text());
    }
    if (Date.now() > until) assert.fail(`${what} is not in the outbox\n--- server log ---\n${stack.server.log().slice(-4000)}`);
    await page.waitForTimeout(1500);
  }
}
/** The delivery log's section (its heading carries the id). */
const log = (page) => page.locator("section[aria-labelledby='delivery-log']");
let domainPath = "";
let channelPath = "";

/** The Slack messages the local receiver got (JSON with Block Kit "blocks"). */
const slackPosts = () =>
  stack.hooks
    .map((h) => {
      try {
        return JSON.parse(h.body);
      } catch {
        return null;
      }
    })
    .filter((b) => b && Array.isArray(b.blocks));

before(async () => {
  stack = await startStack({
    port: Number(process.env.BROWSER_PORT ?? 8990),
    zone,
    // A throwaway 32-byte key for sealing the Slack URL on this local server only.
    vars: { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64") },
  });
});
after(async () => {
  await stack?.stop();
});

test("adds a Slack channel to the local receiver, sends a test and sees it arrive and in the log", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  domainPath = await addVerifiedDomain(page, stack.doh, domain);
  // The first check's alerts come before any channel exists: wait for its result first.
  await page.goto(domainPath);
  await page.locator("#part-spf").waitFor({ timeout: 120_000 });

  await page.getByRole("link", { name: "Notifications" }).click();
  await page.getByText("Channels (0 of 3 on your plan)").waitFor();
  await look(page, "notifications-empty");
  await page.locator("#add-slack summary").click();
  const form = page.locator("#add-slack form");
  await form.getByLabel("Name").fill("Ops in Slack");
  await form.getByLabel("Slack incoming webhook URL").fill(stack.receiverUrl);
  await form.getByLabel("Minimum severity").selectOption("Info");
  await form.getByLabel("Cooldown in minutes").fill("0");
  await look(page, "notifications-add-slack");
  await form.getByRole("button", { name: "Add Slack channel" }).click();
  await page.getByText("The channel was added.").waitFor();
  channelPath = new URL(page.url()).pathname;
  assert.ok((await page.content()).includes("127.0.0.1"), "the target's hint names the host");
  assert.ok(!(await page.content()).includes(stack.receiverUrl), "the full URL is never shown again");

  const before = slackPosts().length;
  await page.getByRole("button", { name: "Send a test message" }).click();
  await page.locator("#test-outcome").getByText("The test message was delivered (HTTP 200).").waitFor();
  assert.equal(slackPosts().length, before + 1, "the test reached the receiver");
  const test = slackPosts().at(-1);
  assert.equal(test.blocks[0].type, "header");
  await log(page).getByText("(test)").waitFor();
  await look(page, "notification-channel-tested");
  await log(page).locator("a[href*='/messages/']").first().click();
  await page.getByRole("heading", { name: "Attempts (1)" }).waitFor();
  await look(page, "notification-message-test");
  await context.close();
});

test("opts in to a members email channel with the Email me button", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.goto("/notifications");
  await page.locator("#add-email-members summary").click();
  const form = page.locator("#add-email-members form");
  await form.getByLabel("Name").fill("Team mail");
  await form.getByRole("button", { name: "Add Email to members channel" }).click();
  await page.getByText("The channel was added.").waitFor();
  await page.getByRole("button", { name: "Email me" }).click();
  await page.getByText("You will get this channel's alerts by email.").waitFor();
  await page.getByRole("link", { name: "Notifications", exact: true }).first().click();
  await page.getByText("1 member opted in").waitFor();
  await page.getByRole("button", { name: "Stop emailing me: Team mail" }).waitFor();
  await look(page, "notifications-list");

  // An outside address: a confirmation link is mailed, its GET only shows a button, the POST confirms.
  const desk = `desk-${stamp}@example.org`;
  await page.locator("#add-email-address summary").click();
  const deskForm = page.locator("#add-email-address form");
  await deskForm.getByLabel("Name").fill("Security desk");
  await deskForm.getByLabel("Email address").fill(desk);
  await deskForm.getByRole("button", { name: "Add Email to an address channel" }).click();
  await page.getByText("a confirmation link was mailed to the address").waitFor();
  await page.getByText("waiting for the address to confirm").waitFor();
  await page.goto("/dev/outbox");
  const mail = page.locator("article.mail", { has: page.locator(".mail-to", { hasText: desk }) }).first();
  // The mailed link is made from the dev origin (port 8787, src/services/notify/links.ts): open its path here.
  const link = new URL((await mail.locator("a.mail-link").getAttribute("href")) ?? "");
  assert.match(link.pathname, /^\/notifications\/confirm\/[A-Za-z0-9]{40}$/);
  const visitor = await stack.person();
  await visitor.page.goto(link.pathname);
  await visitor.page.getByRole("heading", { name: "Confirm this address" }).waitFor();
  await look(visitor.page, "notification-confirm");
  await visitor.page.getByRole("button", { name: "Confirm this address" }).click();
  await visitor.page.getByRole("heading", { name: "Address confirmed" }).waitFor();
  await look(visitor.page, "notification-confirmed");
  await visitor.context.close();
  await page.goto("/notifications");
  assert.equal(await page.getByText("waiting for the address to confirm").count(), 0);
  await context.close();
});

test("a DNS change raises an alert and its grouped message reaches Slack, the delivery log and the mail; the digest renders", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  const sent = slackPosts().length;
  // The SPF record disappears: the next check records the change and raises a drift alert.
  stack.doh.set(domain, { MX: [{ preference: 10, exchange: `mx.${domain}` }] });
  await page.goto(domainPath);
  await page.getByRole("button", { name: "Check now" }).click();
  // The alert opens, then its message collects for the grouping window (30 s) before it is sent.
  const deadline = Date.now() + 150_000;
  while (slackPosts().length === sent) {
    if (Date.now() > deadline) {
      await page.goto(channelPath);
      const shown = await log(page).textContent();
      assert.fail(`the alert's message did not reach the receiver; the log shows: ${shown}\n--- server log ---\n${stack.server.log().slice(-6000)}`);
    }
    await page.waitForTimeout(2000);
  }
  const message = slackPosts().at(-1);
  const text = JSON.stringify(message.blocks);
  assert.ok(text.includes(domain), `the message names the domain: ${text.slice(0, 400)}`);
  await page.goto(channelPath);
  const row = log(page).locator("tbody tr").first();
  await row.getByText("delivered").waitFor();
  assert.notEqual((await row.locator("td[data-label='Opened']").textContent())?.trim(), "0", "the message carried the opened alert");
  await look(page, "notification-channel-alert");
  await row.locator("a").click();
  await page.getByRole("heading", { name: /^Alerts \([1-9]/ }).waitFor();
  assert.ok((await page.content()).includes(domain));
  await look(page, "notification-message-alert");

  // The alert mail and the weekly digest, rendered in Chromium from the local outbox (the same signed-in page:
  // a fourth sign-in link within the minute would meet the per-address throttle, D150).
  // The owner opted in to "Team mail" above, so the DNS change's alert also went out by mail.
  await openMailHtml(page, (m) => m.filter({ hasText: domain }), "the alert mail");
  // The first mention may be the hidden preheader: look for a visible one.
  await page.locator("a, td, h1").filter({ hasText: domain }).first().waitFor();
  await look(page, "mail-alert");

  // The team's digest goes out at its hour in its time zone: hour 0 UTC on today's weekday makes it due now.
  await page.goto("/settings/notifications/digest");
  await page.getByLabel("Time zone (IANA, e.g. Europe/Paris)").fill("UTC");
  await page.getByLabel("Hour (0-23, local)").fill("0");
  const weekday = String(((new Date().getUTCDay() + 6) % 7) + 1);
  await page.getByLabel("Weekly digest on").selectOption(weekday);
  await page.getByRole("button", { name: "Save team settings" }).click();
  await look(page, "digest-settings");
  // The every-minute cron, as wrangler dev runs it on request (--test-scheduled).
  const fired = await fetch(`${stack.url}/__scheduled?cron=*+*+*+*+*`);
  assert.equal(fired.status, 200);
  await openMailHtml(page, (m) => m.filter({ hasText: /digest/i }), "the digest");
  await page.locator("a, td, h1").filter({ hasText: domain }).first().waitFor();
  await look(page, "mail-digest");
  await context.close();
});
