// Single sign-on settings and enforcement through the Worker's real fetch export: only the owner
// changes them (admins read, viewers and tokens cannot change), discovery must name the configured
// issuer exactly (OpenID Connect Discovery §4.3), and under enforcement the email link is refused for
// covered addresses (the owner keeps one) with the same page for every address of the domain.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../support/api";
import { Browser, latestLinkToken, signedInOwner } from "../support/browser";
import { insertMember } from "../support/factories";
import { CLIENT_ID, CLIENT_SECRET, type FakeProvider, ISSUER, installFakeProvider } from "../support/oidc-fake";
import { sessionsOf, ssoSignIn, ssoTeam } from "../routes/sso/support";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await installFakeProvider();
});

const mailsTo = async (email: string) =>
  Number((await env.DB.prepare("SELECT COUNT(*) AS n FROM dev_outbox WHERE recipient = ?").bind(email).first<{ n: number }>())?.n ?? 0);

describe("configuration", () => {
  it("stores the secret sealed, never shows it, and audits the change", async () => {
    const t = await ssoTeam(fake);
    const row = await env.DB.prepare("SELECT client_secret_enc AS s, discovery FROM team_sso WHERE team_id = ?")
      .bind(t.teamId)
      .first<{ s: string; discovery: string }>();
    expect(row?.s).not.toContain(CLIENT_SECRET);
    expect(JSON.parse(row?.discovery ?? "{}")).toMatchObject({ token_endpoint: `${ISSUER}/token`, token_auth: "client_secret_basic" });
    const page = await (await t.owner.fetch("/settings/sso")).text();
    expect(page).not.toContain(CLIENT_SECRET);
    expect(page).toContain("https://app.test/sso/callback");
    const verbs = await env.DB.prepare("SELECT verb, summary FROM audit_entries WHERE team_id = ? AND verb LIKE 'sso.%' ORDER BY seq")
      .bind(t.teamId)
      .all<{ verb: string; summary: string }>();
    expect(verbs.results.map((r) => r.verb)).toEqual(["sso.configure", "sso.domain_add", "sso.domain_verify"]);
    expect(verbs.results.some((r) => r.summary.includes(CLIENT_SECRET))).toBe(false);
  });

  it("refuses a discovery document whose issuer differs from the configured one (Discovery §4.3)", async () => {
    const { b } = await signedInOwner("sso-cfg");
    fake.discovery.issuer = `${ISSUER}/`;
    const res = await b.post("/settings/sso", { issuer: ISSUER, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, "/settings/sso");
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("they must be identical");
  });

  it("refuses an http issuer and a private address in production settings", async () => {
    const { b } = await signedInOwner("sso-cfg");
    let res = await b.post("/settings/sso", { issuer: "http://idp.test", client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, "/settings/sso");
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("must use https");
    fake.zone["intranet-idp.test"] = { A: ["10.0.0.5"] };
    res = await b.post("/settings/sso", { issuer: "https://intranet-idp.test", client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, "/settings/sso");
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("not a public address");
  });

  it("is the owner's alone: admins read it, viewers cannot see it, nobody else changes it", async () => {
    const t = await ssoTeam(fake);
    const admin = await insertMember(t.teamId, "admin");
    const viewer = await insertMember(t.teamId, "viewer");
    const a = new Browser();
    await a.signIn(admin.email);
    const page = await a.fetch("/settings/sso");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("you see the settings read-only");
    expect(html).not.toContain('action="/settings/sso/options"');
    for (const [path, form] of [
      ["/settings/sso", { issuer: "https://evil.test", client_id: "x", client_secret: "y" }],
      ["/settings/sso/options", { enforced: "", auto_join: "on" }],
      ["/settings/sso/domains", { domain: "evil.example" }],
      [`/settings/sso/domains/${t.domain}/delete`, {}],
    ] as const) {
      const res = await a.post(path, form, "/settings/sso");
      expect(res.status, path).toBe(403);
    }
    const v = new Browser();
    await v.signIn(viewer.email);
    expect((await v.fetch("/settings/sso")).status).toBe(403);
    const row = await env.DB.prepare("SELECT issuer, auto_join FROM team_sso WHERE team_id = ?").bind(t.teamId).first<{ issuer: string; auto_join: number }>();
    expect(row).toEqual({ issuer: ISSUER, auto_join: 0 });
  });

  it("refuses enforcement before a domain is verified", async () => {
    const { b } = await signedInOwner("sso-cfg");
    await b.post("/settings/sso", { issuer: ISSUER, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, "/settings/sso");
    const res = await b.post("/settings/sso/options", { enforced: "on", auto_join: "" }, "/settings/sso");
    expect(res.status).toBe(409);
    expect(await res.text()).toContain("Verify at least one email domain");
  });
});

describe("removal", () => {
  it("removes the provider, the secret and the domains, frees the domain and brings email links back, audited", async () => {
    const t = await ssoTeam(fake, { enforced: true });
    const member = await insertMember(t.teamId, "viewer", `ka-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const res = await t.owner.post("/settings/sso/remove", {}, "/settings/sso");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Single sign-on removed");
    const left = await env.DB.prepare("SELECT (SELECT COUNT(*) FROM team_sso WHERE team_id = ?1) + (SELECT COUNT(*) FROM sso_domains WHERE team_id = ?1) AS n")
      .bind(t.teamId)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
    const link = await new Browser().post("/sign-in", { email: member.email }, "/sign-in");
    expect(await link.text()).toContain("Check your email");
    expect(await mailsTo(member.email)).toBe(1);
    const entry = await env.DB.prepare("SELECT summary FROM audit_entries WHERE team_id = ? AND verb = 'sso.remove'")
      .bind(t.teamId)
      .first<{ summary: string }>();
    expect(entry?.summary).toContain(`domains=${t.domain}`);
    // Another team may now prove the domain.
    const other = await ssoTeam(fake, { domain: t.domain });
    expect(other.domain).toBe(t.domain);
  });

  it("is refused to an admin", async () => {
    const t = await ssoTeam(fake);
    const admin = await insertMember(t.teamId, "admin");
    const a = new Browser();
    await a.signIn(admin.email);
    expect((await a.post("/settings/sso/remove", {}, "/settings/sso")).status).toBe(403);
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM team_sso WHERE team_id = ?").bind(t.teamId).first<{ n: number }>())?.n).toBe(1);
  });
});

describe("GET /api/v1/sso", () => {
  it("gives a full token the settings without the secret; a read-only token is refused", async () => {
    const team = await makeTeam();
    let res = await call("/api/v1/sso", { token: team.full });
    expect(res.status).toBe(200);
    const body = await json<{ data: { configured: boolean; domains: unknown[] } }>(res);
    expect(body.data).toMatchObject({ configured: false, domains: [] });
    res = await call("/api/v1/sso", { token: team.readOnly });
    expect(res.status).toBe(403);
  });

  it("offers no way to change single sign-on with a token", async () => {
    const team = await makeTeam();
    for (const method of ["PUT", "POST", "PATCH", "DELETE"]) {
      const res = await call("/api/v1/sso", { method, token: team.full, body: { issuer: "https://evil.test", client_id: "x", client_secret: "y" } });
      expect([404, 405], method).toContain(res.status);
    }
  });
});

describe("enforcement", () => {
  it("refuses the email link for every covered address with the same page, and signs them in through the provider", async () => {
    const t = await ssoTeam(fake, { enforced: true });
    const member = await insertMember(t.teamId, "admin", `gi-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const stranger = `hu-${crypto.randomUUID().slice(0, 6)}@${t.domain}`;
    const b = new Browser();
    const pages: string[] = [];
    for (const email of [member.email, stranger]) {
      const res = await b.post("/sign-in", { email }, "/sign-in");
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain("Your company signs you in through idp.test: use Sign in with SSO.");
      pages.push(html.replaceAll(email, "ADDRESS").replace(/value="[0-9A-Za-z]{32}"/g, ""));
      expect(await mailsTo(email)).toBe(0);
    }
    // Whether the address has an account is not revealed.
    expect(pages[0]).toBe(pages[1]);
    const signed = await ssoSignIn(fake, member.email);
    expect(signed.res.status).toBe(303);
  });

  it("keeps the email link for addresses outside the covered domains, and for the owner", async () => {
    const t = await ssoTeam(fake, { enforced: true });
    const outside = `iv-${crypto.randomUUID().slice(0, 6)}@unrelated.example`;
    const res = await new Browser().post("/sign-in", { email: outside }, "/sign-in");
    expect(await res.text()).toContain("Check your email");
    expect(await mailsTo(outside)).toBe(1);
    // The owner of an enforcing team whose own address is covered still gets a link (D247).
    await env.DB.prepare("UPDATE teams SET owner_email = ? WHERE id = ?").bind(`boss@${t.domain}`, t.teamId).run();
    const owner = await new Browser().post("/sign-in", { email: `boss@${t.domain}` }, "/sign-in");
    expect(await owner.text()).toContain("Your company signs you in through idp.test");
    expect(await mailsTo(`boss@${t.domain}`)).toBe(1);
  });

  it("refuses a link mailed before enforcement was turned on", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `jo-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const b = new Browser();
    await b.post("/sign-in", { email: member.email }, "/sign-in");
    const token = await latestLinkToken(member.email);
    await t.owner.post("/settings/sso/options", { enforced: "on", auto_join: "" }, "/settings/sso");
    const res = await b.post("/auth/link", { token }, `/auth/link?token=${token}`);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("use Sign in with SSO");
    expect(await sessionsOf(member.email)).toBe(0);
  });
});
