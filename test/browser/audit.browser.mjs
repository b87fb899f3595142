// The audit log in a real browser against wrangler dev (issue 33 §1): an owner creates an API token and
// adds a domain, opens "Audit log" from the navigation, finds both with their own address and the face
// they came through, filters to the token changes, verifies the chain and sees the export link of the
// filtered view. Screenshots at desktop and phone widths and axe-core on every page.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { look, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `audit-owner-${stamp}@example.com`;
const domain = `audit-${stamp}.example`;
let stack;

before(async () => {
  stack = await startStack({ port: Number(process.env.BROWSER_PORT ?? 8940) });
});
after(async () => {
  await stack?.stop();
});

test("an owner sees who did what, filters it, verifies the chain and exports it", async () => {
  const { page } = await stack.person();
  await signIn(page, owner);

  await page.goto("/tokens");
  await page.getByLabel("Name").fill("release pipeline");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByRole("heading", { name: /new token/i }).waitFor();
  await page.goto("/domains/new");
  await page.getByLabel("Domain name").fill(domain);
  await page.getByRole("button", { name: "Add domain" }).click();
  await page.getByText("Publish this TXT record").waitFor();

  await page.getByRole("link", { name: "Audit log" }).click();
  await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
  const rows = page.locator("table tbody tr");
  const tokenRow = rows.filter({ hasText: "token.create" }).filter({ hasText: "release pipeline" });
  await tokenRow.waitFor();
  assert.match(await tokenRow.textContent(), new RegExp(owner.replace(/[.]/g, "\\.")));
  assert.match(await tokenRow.textContent(), /Dashboard/);
  const domainRow = rows.filter({ hasText: "domain.create" });
  assert.match(await domainRow.first().textContent(), new RegExp(domain.replace(/[.]/g, "\\.")));
  await look(page, "audit-log");

  await page.getByLabel("Verb").fill("token.*");
  await page.getByRole("button", { name: "Show" }).click();
  await page.waitForURL((u) => u.searchParams.get("verb") === "token.*");
  assert.equal(await page.locator("table tbody tr", { hasText: "domain.create" }).count(), 0);
  assert.ok((await page.locator("table tbody tr", { hasText: "token.create" }).count()) >= 1);
  const exportHref = await page.getByRole("link", { name: "Export (NDJSON)" }).getAttribute("href");
  assert.equal(exportHref, "/audit/export?verb=token.*");

  await page.getByRole("link", { name: "Verify chain" }).click();
  await page.locator("#verify-result").waitFor();
  assert.match(await page.locator("#verify-result").textContent(), /The chain is intact/);
  await look(page, "audit-log-verified");

  // The export of the filtered view: NDJSON, each line one entry with its hash.
  const res = await page.request.get(exportHref);
  assert.equal(res.status(), 200);
  assert.match(res.headers()["content-disposition"], /^attachment; filename="audit-\d+-\d{4}-\d{2}-\d{2}\.ndjson"$/);
  const lines = (await res.text())
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.ok(lines.length >= 1);
  for (const e of lines) {
    assert.match(e.verb, /^token\./);
    assert.match(e.hash, /^[0-9a-f]{64}$/);
  }
});
