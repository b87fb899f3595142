// Single sign-on in a real browser (issue 33 §2) against a real, certified OpenID provider run locally
// (oidc-provider in scripts/dev-oidc-provider.mjs, started and stopped here): an owner configures the provider on
// /settings/sso and proves the covered domain with its TXT record in the local DNS; alice signs in through the
// provider (code flow, PKCE, nonce) and lands on the dashboard; with enforcement on, her email link is refused
// with the reason; and each forged ID token the provider's adversary returns (tampered signature, a key not in
// its JWKS, another audience, another issuer, expired, a replayed nonce, alg none) is refused with a 4xx page and
// no session. The provider is on localhost and the Worker on 127.0.0.1: another site, as a company's provider is.
// Screenshots at desktop and phone widths and axe-core on every page of this site.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startOidcProvider } from "../../scripts/dev-oidc-provider.mjs";
import { look, openMailLink, shoot, signIn, startStack } from "./harness.mjs";

const PORT = Number(process.env.BROWSER_PORT ?? 8880);
const stamp = Date.now().toString(36);
// The owner is one of the company's people too: enforcement must not lock them out (their email link keeps working).
const owner = `sso-owner-${stamp}@acme.test`;
const COVERED = "acme.test";
const ALICE = "alice@acme.test";

let stack;
let op;
const providerLog = [];
/** The owner's signed-in page, kept for the whole file (each sign-in mails a link, and links are throttled per address). */
let ownerPage;

before(async () => {
  op = await startOidcProvider({
    port: 0,
    redirectUris: [`http://127.0.0.1:${PORT}/sso/callback`],
    adversary: true,
    log: (line) => providerLog.push(line),
  });
  // A throwaway 32-byte key for sealing the client secret on this local server only.
  stack = await startStack({ port: PORT, vars: { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") } });
});
after(async () => {
  await stack?.stop();
  await op?.stop();
});

const serverLog = () => `\n--- provider ---\n${providerLog.slice(-10).join("\n")}\n--- server log ---\n${stack.server.log().slice(-4000)}`;

/**
 * Signs in through the provider's own page, as a person would, starting from "Sign in with SSO" on the sign-in page
 * (the form) or from a link to /sso/start with the address (the settings page's test link); returns the callback's
 * response (its status and where it led). The provider's page is another site: not ours to check with axe.
 */
async function ssoSignIn(page, email, { via = "link" } = {}) {
  // What the browser refused on the way (a Content Security Policy violation is only a console message).
  const refused = [];
  const listen = (m) => m.type() === "error" && refused.push(m.text());
  page.on("console", listen);
  if (via === "form") {
    await page.goto("/sign-in");
    await page.getByLabel("Work email address").fill(email);
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
  } else {
    await page.goto(`/sso/start?email=${encodeURIComponent(email)}`);
  }
  await page
    .waitForURL((u) => u.origin === op.issuer)
    .catch((e) => {
      throw new Error(`the browser did not reach the provider from ${page.url()}: ${refused.join("; ") || e.message}`);
    });
  page.off("console", listen);
  await page.getByRole("heading", { name: "Local OpenID provider" }).waitFor();
  await page.getByLabel("Email address").fill(email);
  const callback = page.waitForResponse((r) => new URL(r.url()).pathname === "/sso/callback");
  await page.getByRole("button", { name: "Sign in" }).click();
  const res = await callback;
  await page.waitForLoadState();
  return res;
}

/** True when this browser has a session on the site: the dashboard answers instead of sending to sign-in. */
async function signedIn(page) {
  const res = await page.request.get("/dashboard", { maxRedirects: 0 });
  return res.status() === 200;
}

test("the owner configures the local provider, proves the covered domain and allows new people to join", async () => {
  const { page } = await stack.person();
  ownerPage = page;
  await signIn(page, owner);
  await page.goto("/settings/sso");
  await look(page, "sso-settings-empty");
  await page.getByLabel("Issuer URL").fill(op.issuer);
  await page.getByLabel("Client id").fill(op.clientId);
  await page.getByLabel("Client secret").fill(op.clientSecret);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Provider saved: its discovery document was read and checked.").waitFor();
  await page.getByText("client_secret_basic").waitFor();
  assert.ok(!(await page.content()).includes(op.clientSecret), "the client secret is never shown again");

  await page.getByLabel("Add a domain").fill(COVERED);
  await page.getByRole("button", { name: "Add domain" }).click();
  const txt = page.locator("code", { hasText: "emailauth-verify=" }).first();
  const value = (await txt.textContent())?.trim() ?? "";
  assert.match(value, /^emailauth-verify=[0-9A-Za-z]+$/);
  stack.doh.set(`_emailauth-verify.${COVERED}`, { TXT: [value] });
  await page.getByRole("button", { name: `Verify ${COVERED}` }).click();
  await page.getByText(`${COVERED} verified.`).waitFor();

  await page.getByLabel("Auto-join new people as viewers").check();
  await page.getByRole("button", { name: "Save enforcement" }).click();
  await page.getByText("Enforcement saved.").waitFor();
  await look(page, "sso-settings-configured");
});

test("alice signs in through the provider and lands on the team's dashboard", async () => {
  const { page, context } = await stack.person();
  const res = await ssoSignIn(page, ALICE, { via: "form" });
  assert.equal(res.status(), 303, `the callback signs in and redirects${serverLog()}`);
  assert.match((await res.allHeaders())["set-cookie"] ?? "", /eam_session=/, "the callback sets the session cookie");
  await page.waitForURL((u) => u.pathname === "/dashboard");
  assert.ok(await signedIn(page));
  assert.ok((await page.content()).includes(ALICE), "the dashboard names who is signed in");
  // Auto-join: she is new, from a covered domain, and joined the owner's team as a viewer.
  assert.match((await page.locator("#team-switch option[selected]").textContent()) ?? "", /\(viewer\)$/);
  await look(page, "sso-dashboard-alice");

  // The callback's URL is single use: the same code and state again (a replay) is refused, the session untouched.
  const again = await page.goto(res.url());
  assert.equal(again?.status(), 400);
  await page.getByText("already used").waitFor();
  assert.ok(await signedIn(page), "a refused replay does not end the session it finds");

  await page.goto("/dashboard");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL((u) => u.pathname === "/sign-in");
  assert.equal(await signedIn(page), false);
  await context.close();
});

test("with enforcement on, alice's email link is refused with the reason; the owner's own link still works", async () => {
  await ownerPage.goto("/settings/sso");
  await ownerPage.getByLabel("Enforce single sign-on").check();
  await ownerPage.getByRole("button", { name: "Save enforcement" }).click();
  await ownerPage.getByText("Enforcement saved.").waitFor();
  await look(ownerPage, "sso-settings-enforced");

  const { page, context } = await stack.person();
  await page.goto("/sign-in");
  await page.getByLabel("Email address", { exact: true }).fill(ALICE);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  const host = new URL(op.issuer).host;
  await page.getByText(`Your company signs you in through ${host}: use Sign in with SSO.`).waitFor();
  await look(page, "sso-email-link-refused");
  await page.goto("/dev/outbox");
  assert.equal(await page.locator("article.mail", { has: page.locator(".mail-to", { hasText: ALICE }) }).count(), 0, "no link was mailed");
  assert.equal(await signedIn(page), false);

  // Through the provider she still signs in.
  const res = await ssoSignIn(page, ALICE);
  assert.equal(res.status(), 303, serverLog());
  assert.ok(await signedIn(page));
  await context.close();

  // The owner, in the same covered domain, still gets an email link (a provider outage cannot lock the team out);
  // the page shows the same words as for anyone in the domain (it never tells who the owner is).
  const o = await stack.person();
  await o.page.goto("/sign-in");
  await o.page.getByLabel("Email address", { exact: true }).fill(owner);
  await o.page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await o.page.getByText(`Your company signs you in through ${host}: use Sign in with SSO.`).waitFor();
  await openMailLink(o.page, owner);
  await o.page.getByRole("button", { name: "Sign in" }).click();
  await o.page.waitForURL((u) => u.pathname === "/dashboard");
  assert.ok(await signedIn(o.page));
  await o.context.close();
});

// Each forgery changes one thing of the ID token the provider issued for this very code exchange
// (OpenID Connect Core 1.0 §3.1.3.7); the Worker must refuse it with a 4xx page and open no session.
const FORGERIES = [
  ["tampered", /signature does not verify/],
  ["foreign-key", /signature does not verify/],
  ["wrong-audience", /another client/],
  ["wrong-issuer", /another issuer/],
  ["expired", /expired/],
  ["replayed-nonce", /nonce does not match/],
  ["unsigned", /algorithm/],
];

for (const [attack, reason] of FORGERIES) {
  test(`${/^[aeiou]/.test(attack) ? "an" : "a"} ${attack} ID token is refused: a 4xx page, no session`, async () => {
    const { page, context } = await stack.person();
    op.attack(attack);
    const res = await ssoSignIn(page, ALICE);
    assert.ok(res.status() >= 400 && res.status() < 500, `${attack}: the callback answered ${res.status()}${serverLog()}`);
    assert.ok(providerLog.at(-1)?.includes(attack), `the provider served the ${attack} token`);
    const text = (await page.locator("main").textContent()) ?? "";
    assert.match(text, reason, `${attack}: the page says why`);
    assert.doesNotMatch((await res.allHeaders())["set-cookie"] ?? "", /eam_session=/, `${attack}: no session cookie`);
    assert.equal(await signedIn(page), false, `${attack}: no session`);
    if (attack === "tampered") await look(page, "sso-refused-tampered");
    else await shoot(page, `sso-refused-${attack}`);
    await context.close();
  });
}

test("an address the provider never verified is refused", async () => {
  const { page, context } = await stack.person();
  const res = await ssoSignIn(page, "mallory@acme.test");
  assert.ok(res.status() >= 400 && res.status() < 500, `the callback answered ${res.status()}${serverLog()}`);
  await page.getByText("has not verified this email address").waitFor();
  assert.equal(await signedIn(page), false);
  await context.close();
});
