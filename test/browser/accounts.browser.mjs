// Accounts in a real browser against wrangler dev: sign up through the emailed link, create a token
// and call /api/v1/me with it, revoke it and see the 401, invite a member who signs in as viewer and
// cannot change anything, sign out. Screenshots and axe-core on every page.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { look, openMailLink, signIn, startStack } from "./harness.mjs";

let stack;
const owner = `owner-${Date.now()}@example.com`;
const viewer = `viewer-${Date.now()}@example.com`;
let token = "";

before(async () => {
  stack = await startStack({ port: 8820 });
});
after(async () => {
  await stack?.stop();
});

test("a new user signs up through the emailed link and lands on the dashboard", async () => {
  const { page } = await stack.person();
  await page.goto("/");
  await look(page, "landing");
  await page.getByRole("link", { name: "Sign in or create an account" }).click();
  await look(page, "sign-in");
  await page.getByLabel("Email address", { exact: true }).fill(owner);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await look(page, "check-your-email");
  await openMailLink(page, owner);
  await look(page, "confirm-sign-in");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard");
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  assert.ok((await page.content()).includes(owner));
  await look(page, "dashboard-empty");
  await page.context().close();
});

test("creates a token, uses it on the API, revokes it and sees the 401", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.getByRole("link", { name: "API tokens" }).click();
  await page.getByLabel("Name").fill("Laptop");
  await page.getByLabel("Scope").selectOption("full");
  await page.getByRole("button", { name: "Create token" }).click();
  token = (await page.locator("#token-value").textContent()) ?? "";
  assert.match(token, /^eam_[0-9A-Za-z]{40}$/);
  assert.ok((await page.locator("#token-curl").textContent())?.includes(`Bearer ${token}`));
  await look(page, "token-created");

  const me = await fetch(`${stack.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(me.status, 200);

  await page.goto("/tokens");
  page.once("dialog", (d) => d.accept());
  await page.getByRole("button", { name: "Revoke Laptop" }).click();
  await page.getByText("The token was revoked.").waitFor();
  await look(page, "tokens");
  const after = await fetch(`${stack.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(after.status, 401);
  await context.close();
});

test("invites a member who signs in as a viewer and cannot change anything", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.goto("/team");
  await page.getByLabel("Email address").fill(viewer);
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.getByText("Invitation sent.").waitFor();
  await look(page, "team-owner");
  await context.close();

  const v = await stack.person();
  await openMailLink(v.page, viewer);
  await v.page.getByRole("button", { name: "Accept and sign in" }).click();
  await v.page.waitForURL("**/dashboard");
  await v.page.goto("/tokens");
  assert.equal(await v.page.getByRole("button", { name: "Create token" }).count(), 0, "a viewer sees no create control");
  assert.equal(await v.page.getByRole("button", { name: /^Revoke/ }).count(), 0, "a viewer sees no revoke control");
  await look(v.page, "tokens-viewer");
  await v.page.goto("/team");
  assert.equal(await v.page.getByRole("button", { name: "Send invitation" }).count(), 0);
  await look(v.page, "team-viewer");
  // Even a hand-made form post is refused.
  const status = await v.page.evaluate(async () => {
    const csrf = document.querySelector('input[name="_csrf"]')?.getAttribute("value") ?? "";
    const r = await fetch("/tokens", { method: "POST", body: new URLSearchParams({ _csrf: csrf, name: "sneaky", scope: "full" }) });
    return r.status;
  });
  assert.equal(status, 403);

  await v.page.getByRole("button", { name: "Sign out", exact: true }).click();
  await v.page.waitForURL("**/sign-in");
  await v.page.goto("/dashboard");
  await v.page.waitForURL("**/sign-in?next=%2Fdashboard");
  await v.context.close();
});

test("keyboard only: the skip link and the sign-in form work without a mouse", async () => {
  const { page, context } = await stack.person();
  await page.goto("/sign-in");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), "Skip to content");
  await page.getByLabel("Email address", { exact: true }).focus();
  await page.keyboard.type(`kb-${Date.now()}@example.com`);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Check your email" }).waitFor();
  await context.close();
});
