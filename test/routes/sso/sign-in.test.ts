// Sign-in through the team's OpenID provider, through the Worker's real fetch export, against a fake
// provider at the edge (test/support/oidc-fake.ts). The happy path lands in the team with a session;
// every forged or wrong ID token (OpenID Connect Core §3.1.3.7) is a 4xx page and writes no session.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { insertMember } from "../../support/factories";
import { CLIENT_ID, CLIENT_SECRET, type FakeProvider, ISSUER, type IssueOptions, installFakeProvider } from "../../support/oidc-fake";
import { Browser, signedInOwner } from "../../support/browser";
import { freshDomain, sessionCookieOf, sessionsOf, ssoSignIn, ssoTeam } from "./support";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await installFakeProvider();
});

describe("sign-in through the provider", () => {
  it("signs a member in: PKCE and client_secret_basic at the token endpoint, a session like the email link's, landing in the team, audited", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "admin", `ada-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { b, res, startCookie } = await ssoSignIn(fake, member.email);
    expect(startCookie).toMatch(/HttpOnly/i);
    expect(startCookie).toMatch(/Secure/i);
    expect(startCookie).toMatch(/SameSite=Lax/i);
    expect(startCookie).toMatch(/Path=\//);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const cookie = sessionCookieOf(res);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const request = fake.tokenRequests.at(-1);
    expect(request?.authorization).toBe(`Basic ${btoa(`${CLIENT_ID}:${CLIENT_SECRET}`)}`);
    expect(request?.body.get("code_verifier")).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(request?.body.get("redirect_uri")).toBe("https://app.test/sso/callback");
    const page = await b.fetch("/dashboard");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(member.email);
    expect(html).toContain("(admin)");
    const entry = await env.DB.prepare("SELECT verb, summary, actor_id FROM audit_entries WHERE team_id = ? AND verb = 'sign_in' ORDER BY seq DESC LIMIT 1")
      .bind(t.teamId)
      .first<{ verb: string; summary: string; actor_id: string }>();
    expect(entry?.summary).toContain("method=sso");
    expect(entry?.actor_id).toBe(String(member.id));
  });

  const refusals: Array<[string, IssueOptions, RegExp]> = [
    ["a tampered payload", { forge: "tampered" }, /signature does not verify/],
    ["a token signed by another key", { forge: "foreign_key" }, /signature does not verify|no key of the provider/],
    ['alg "none"', { forge: "alg_none" }, /algorithm this service does not accept|malformed/],
    ["HS256 keyed with the provider's public key", { forge: "hs256_public_key" }, /algorithm this service does not accept/],
    ["another audience", { claims: { aud: "someone-else" } }, /another client \(aud\)/],
    ["several audiences and no azp", { claims: { aud: [CLIENT_ID, "other"] } }, /several audiences and no azp/],
    ["another azp", { claims: { azp: "other" } }, /another client \(azp\)/],
    ["another issuer", { claims: { iss: "https://evil.test" } }, /another issuer/],
    ["an expired token", { claims: { exp: Math.floor(Date.now() / 1000) - 120, iat: Math.floor(Date.now() / 1000) - 400 } }, /expired/],
    ["an issue time in the future", { claims: { iat: Math.floor(Date.now() / 1000) + 600, exp: Math.floor(Date.now() / 1000) + 900 } }, /in the future/],
    ["a nonce from another sign-in", { claims: { nonce: "another-nonce" } }, /nonce does not match/],
    ["no nonce", { claims: { nonce: undefined } }, /nonce/],
    ["no email", { claims: { email: undefined } }, /did not send an email address/],
    ["an unverified email", { claims: { email_verified: false } }, /has not verified this email/],
    ['email_verified as the string "true"', { claims: { email_verified: "true" } }, /has not verified this email/],
    ["no email_verified at all", { claims: { email_verified: undefined } }, /has not verified this email/],
    ["Entra's xms_edov true beside email_verified false", { claims: { email_verified: false, xms_edov: true } }, /has not verified this email/],
    ['Entra\'s xms_edov as the string "1"', { claims: { email_verified: undefined, xms_edov: "1" } }, /has not verified this email/],
  ];
  for (const [what, opts, reason] of refusals) {
    it(`refuses ${what} with a 4xx page and no session`, async () => {
      const t = await ssoTeam(fake);
      const member = await insertMember(t.teamId, "viewer", `bo-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
      const { res } = await ssoSignIn(fake, member.email, opts);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await res.text()).toMatch(reason);
      expect(sessionCookieOf(res)).toBeUndefined();
      expect(await sessionsOf(member.email)).toBe(0);
    });
  }

  it("signs in with Microsoft Entra ID's xms_edov claim where the token has no email_verified", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `en-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { res } = await ssoSignIn(fake, member.email, { claims: { email_verified: undefined, xms_edov: true } });
    expect(res.status).toBe(303);
    expect(await sessionsOf(member.email)).toBe(1);
  });

  it("refuses an address outside the team's verified domains, even in a genuine token", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `cy-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const outsider = `cy-${crypto.randomUUID().slice(0, 6)}@elsewhere.example`;
    const { res } = await ssoSignIn(fake, member.email, { claims: { email: outsider } });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("not in a domain the team");
    expect(await sessionsOf(outsider)).toBe(0);
  });

  it("refuses a replayed state: the callback works once", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `di-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const first = await ssoSignIn(fake, member.email);
    expect(first.res.status).toBe(303);
    const again = await first.b.fetch(first.callbackPath);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("already used");
    expect(await sessionsOf(member.email)).toBe(1);
  });

  it("refuses a callback in a browser that did not start the sign-in (no sign-in cookie)", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `ed-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const victim = new Browser();
    const attacker = new Browser();
    const start = await attacker.fetch(`/sso/start?email=${encodeURIComponent(member.email)}`);
    const location = start.headers.get("location") ?? "";
    const code = fake.authorize(location);
    const res = await victim.fetch(`/sso/callback?code=${code}&state=${new URL(location).searchParams.get("state")}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("started in another browser");
    expect(sessionCookieOf(res)).toBeUndefined();
    expect(await sessionsOf(member.email)).toBe(0);
  });

  it("shows the provider's refusal (error=) as a clear 400 page", async () => {
    const res = await new Browser().fetch("/sso/callback?error=access_denied&error_description=User+cancelled&state=x");
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("did not sign you in (access_denied: User cancelled)");
  });

  it("authenticates with client_secret_post when the provider lists only that (Core §9)", async () => {
    fake.discovery.token_endpoint_auth_methods_supported = ["client_secret_post"];
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `po-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { res } = await ssoSignIn(fake, member.email);
    expect(res.status).toBe(303);
    const request = fake.tokenRequests.at(-1);
    expect(request?.authorization).toBeNull();
    expect(request?.body.get("client_secret")).toBe(CLIENT_SECRET);
  });

  it("refuses when the token endpoint refuses the code (a wrong PKCE verifier is the provider's invalid_grant)", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `pk-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const b = new Browser();
    const start = await b.fetch(`/sso/start?email=${encodeURIComponent(member.email)}`);
    const location = new URL(start.headers.get("location") ?? "");
    // The provider saw another challenge than the one the Worker's verifier hashes to.
    location.searchParams.set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    const code = fake.authorize(location.href);
    const res = await b.fetch(`/sso/callback?code=${code}&state=${location.searchParams.get("state")}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("refused to redeem the sign-in (invalid_grant)");
    expect(await sessionsOf(member.email)).toBe(0);
  });

  it("answers the sign-in page's form with a page that moves on to the provider (CSP form-action stays 'self')", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `fo-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const b = new Browser();
    const res = await b.post("/sso/start", { email: member.email }, "/sign-in");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("form-action 'self';");
    const refresh = res.headers.get("refresh") ?? "";
    expect(refresh).toMatch(/^0;url=https:\/\/idp\.test\/authorize\?/);
    expect(await res.text()).toContain("Continue to idp.test");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("__Host-sso="))).toBe(true);
    const location = refresh.slice("0;url=".length);
    const code = fake.authorize(location);
    const done = await b.fetch(`/sso/callback?code=${code}&state=${new URL(location).searchParams.get("state")}`);
    expect(done.status).toBe(303);
  });

  it("answers 404 for an address whose domain has no verified single sign-on", async () => {
    const res = await new Browser().fetch("/sso/start?email=someone@nowhere-sso.example");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Single sign-on is not set up for nowhere-sso.example");
  });
});

describe("joining on first sign-in", () => {
  it("refuses a new person from a covered domain without auto-join, and asks them to get invited", async () => {
    const t = await ssoTeam(fake);
    const email = `new-${crypto.randomUUID().slice(0, 6)}@${t.domain}`;
    const { res } = await ssoSignIn(fake, email);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Ask the team owner to invite you");
    expect(await sessionsOf(email)).toBe(0);
  });

  it("with auto-join, a new person joins as a viewer", async () => {
    const t = await ssoTeam(fake, { autoJoin: true });
    const email = `new-${crypto.randomUUID().slice(0, 6)}@${t.domain}`;
    const { res, b } = await ssoSignIn(fake, email);
    expect(res.status).toBe(303);
    const role = await env.DB.prepare("SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ? AND m.team_id = ?")
      .bind(email, t.teamId)
      .first<{ role: string }>();
    expect(role?.role).toBe("viewer");
    expect(await (await b.fetch("/dashboard")).text()).toContain("(viewer)");
  });
});

describe("tenancy", () => {
  it("a domain verified by one team cannot be verified by another, and its people sign in only to the first", async () => {
    const a = await ssoTeam(fake);
    const b = await ssoTeam(fake);
    let res = await b.owner.post("/settings/sso/domains", { domain: a.domain }, "/settings/sso");
    expect(res.status).toBe(200);
    const row = await env.DB.prepare("SELECT verification_token AS t FROM sso_domains WHERE team_id = ? AND domain = ?")
      .bind(b.teamId, a.domain)
      .first<{ t: string }>();
    // Even with team B's own record published, team A holds the domain.
    fake.publishTxt(`_emailauth-verify.${a.domain}`, `emailauth-verify=${row?.t}`);
    res = await b.owner.post(`/settings/sso/domains/${a.domain}/verify`, {}, "/settings/sso");
    expect(res.status).toBe(409);
    expect(await res.text()).toContain("already verified for single sign-on by another team");
    // A member of team B with an address in team A's domain is not let into team A.
    const member = await insertMember(b.teamId, "admin", `fi-${crypto.randomUUID().slice(0, 6)}@${a.domain}`);
    const attempt = await ssoSignIn(fake, member.email);
    expect(attempt.res.status).toBe(403);
    expect(await sessionsOf(member.email)).toBe(0);
  });
  it("two teams verifying the same domain at once: one wins, and only the winner's verification is in an audit log", async () => {
    const domain = freshDomain();
    const teams = [await signedInOwner("sso-race"), await signedInOwner("sso-race")];
    const tokens: string[] = [];
    for (const t of teams) {
      expect((await t.b.post("/settings/sso", { issuer: ISSUER, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, "/settings/sso")).status).toBe(200);
      expect((await t.b.post("/settings/sso/domains", { domain }, "/settings/sso")).status).toBe(200);
      const row = await env.DB.prepare("SELECT verification_token AS t FROM sso_domains WHERE team_id = ? AND domain = ?")
        .bind(t.teamId, domain)
        .first<{ t: string }>();
      tokens.push(`emailauth-verify=${row?.t}`);
    }
    // Both teams' records are published, so both lookups succeed and both requests reach the write.
    fake.publishTxt(`_emailauth-verify.${domain}`, ...tokens);
    const answers = await Promise.all(teams.map((t) => t.b.post(`/settings/sso/domains/${domain}/verify`, {}, "/settings/sso")));
    const texts = await Promise.all(answers.map((r) => r.text()));
    expect(texts.filter((t) => t.includes(`${domain} verified.`))).toHaveLength(1);
    const verified = await env.DB.prepare("SELECT team_id AS t FROM sso_domains WHERE domain = ? AND verified_at IS NOT NULL")
      .bind(domain)
      .all<{ t: number }>();
    expect(verified.results).toHaveLength(1);
    const entries = await env.DB.prepare("SELECT team_id AS t FROM audit_entries WHERE verb = 'sso.domain_verify' AND target_id = ?")
      .bind(domain)
      .all<{ t: number }>();
    expect(entries.results.map((e) => e.t)).toEqual([verified.results[0]?.t]);
  });
});
