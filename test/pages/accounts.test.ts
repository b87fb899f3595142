// Accounts through the Worker's real fetch export: sign-in by emailed link, sessions, teams and
// members, tokens made in the dashboard and used on the API, CSRF, and cross-team ids.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, unique } from "../support/api";
import { Browser, latestLinkToken } from "../support/browser";

const email = () => `${unique("u").toLowerCase()}@example.com`;
const idFrom = (html: string, re: RegExp) => Number(re.exec(html)?.[1]);

describe("sign-in by email link", () => {
  it("signs a new address up: a starter team with the user as owner, landing on the dashboard", async () => {
    const b = new Browser();
    const address = email();
    const res = await b.signIn(address);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-eam_session="));
    expect(cookie, "session cookie").toBeDefined();
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    const page = await b.fetch("/dashboard");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(address);
    expect(html).toContain("(owner)");
    const team = await env.DB.prepare(
      "SELECT t.plan, t.owner_email FROM teams t JOIN memberships m ON m.team_id = t.id JOIN users u ON u.id = m.user_id WHERE u.email = ?",
    )
      .bind(address)
      .first<{ plan: string; owner_email: string }>();
    expect(team).toEqual({ plan: "starter", owner_email: address });
  });

  it("answers the same for any address and stores only the hash of the link", async () => {
    const b = new Browser();
    const [ea, eb] = [email(), email()];
    const a = await (await b.post("/sign-in", { email: ea }, "/sign-in")).text();
    const b2 = await (await b.post("/sign-in", { email: eb }, "/sign-in")).text();
    // The page repeats the address typed (to resend it); apart from it, the answer is the same.
    const same = (html: string, typed: string) => html.replaceAll(typed, "ADDRESS").replace(/value="[0-9A-Za-z]{32}"/g, "");
    expect(a).toContain(ea);
    expect(same(a, ea)).toBe(same(b2, eb));
    const address = email();
    await b.post("/sign-in", { email: address }, "/sign-in");
    const token = await latestLinkToken(address);
    const stored = await env.DB.prepare("SELECT token_hash FROM sign_in_links WHERE email = ?").bind(address).first<{ token_hash: string }>();
    expect(stored?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored?.token_hash).not.toContain(token);
  });

  it("refuses an invalid address with a 422 page and mails nothing", async () => {
    const b = new Browser();
    const res = await b.post("/sign-in", { email: "not-an-address" }, "/sign-in");
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("Enter a valid email address.");
  });

  it("uses a link once: the second use and a made-up token go back to sign-in", async () => {
    const b = new Browser();
    const address = email();
    await b.post("/sign-in", { email: address }, "/sign-in");
    const token = await latestLinkToken(address);
    expect((await b.post("/auth/link", { token }, `/auth/link?token=${token}`)).status).toBe(303);
    const again = await new Browser().fetch(`/auth/link?token=${token}`);
    expect(again.headers.get("location")).toBe("/sign-in?expired=1");
    const other = new Browser();
    const replay = await other.post("/auth/link", { token }, "/sign-in");
    expect(replay.headers.get("location")).toBe("/sign-in?expired=1");
    expect(other.cookies.has("__Host-eam_session")).toBe(false);
    expect((await other.fetch(`/auth/link?token=${"x".repeat(43)}`)).headers.get("location")).toBe("/sign-in?expired=1");
  });

  it("expires a link after 15 minutes", async () => {
    const b = new Browser();
    const address = email();
    await b.post("/sign-in", { email: address }, "/sign-in");
    const token = await latestLinkToken(address);
    await env.DB.prepare("UPDATE sign_in_links SET expires_at = ? WHERE email = ?")
      .bind(Date.now() - 1, address)
      .run();
    expect((await b.post("/auth/link", { token }, "/sign-in")).headers.get("location")).toBe("/sign-in?expired=1");
  });

  it("does not sign in on a GET of the link (mail scanners open links)", async () => {
    const b = new Browser();
    const address = email();
    await b.post("/sign-in", { email: address }, "/sign-in");
    const token = await latestLinkToken(address);
    const page = await b.fetch(`/auth/link?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(b.cookies.has("__Host-eam_session")).toBe(false);
    expect((await b.fetch("/dashboard")).status).toBe(303);
  });

  it("throttles link requests per address (429 with Retry-After)", async () => {
    const address = email();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await new Browser().post("/sign-in", { email: address }, "/sign-in")).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[4]).toBe(429);
  });

  it("returns to a same-origin next path, never to another site", async () => {
    const b = new Browser();
    expect((await b.signIn(email(), "/tokens")).headers.get("location")).toBe("/tokens");
    const c = new Browser();
    expect((await c.signIn(email(), "//evil.example/x")).headers.get("location")).toBe("/dashboard");
  });

  it("claims a team an operator made for the owner's address", async () => {
    const owner = email();
    const res = await call("/admin/teams", {
      method: "POST",
      token: "test-admin-token-0123456789abcdefghijklmnop",
      body: { name: unique("ops team"), plan: "pro", owner_email: owner },
    });
    const { data } = await json<{ data: { team: { id: number; name: string } } }>(res);
    const b = new Browser();
    await b.signIn(owner);
    const html = await (await b.fetch("/team")).text();
    expect(html).toContain(data.team.name);
    expect(html).toContain(">pro<");
  });
});

describe("sessions", () => {
  it("redirects a signed-out visitor to sign-in with the page to come back to", async () => {
    const res = await new Browser().fetch("/tokens");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sign-in?next=%2Ftokens");
  });

  it("signs out (the old cookie no longer works) and signs out everywhere", async () => {
    const address = email();
    const a = new Browser();
    const b = new Browser();
    await a.signIn(address);
    await b.signIn(address);
    const stolen = a.cookies.get("__Host-eam_session") ?? "";
    expect((await a.post("/sign-out")).headers.get("location")).toBe("/sign-in");
    const replay = new Browser();
    replay.cookies.set("__Host-eam_session", stolen);
    expect((await replay.fetch("/dashboard")).status).toBe(303);
    expect((await b.fetch("/dashboard")).status).toBe(200);
    await b.post("/sign-out/everywhere", {}, "/team");
    const c = new Browser();
    c.cookies.set("__Host-eam_session", stolen);
    expect((await b.fetch("/dashboard")).status).toBe(303);
  });

  it("ends an idle session after 7 days and any session after 30", async () => {
    const b = new Browser();
    const address = email();
    await b.signIn(address);
    await env.DB.prepare("UPDATE sessions SET last_seen_at = ? WHERE user_id = (SELECT id FROM users WHERE email = ?)")
      .bind(Date.now() - 8 * 86_400_000, address)
      .run();
    expect((await b.fetch("/dashboard")).status).toBe(303);
    const c = new Browser();
    await c.signIn(address);
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = (SELECT id FROM users WHERE email = ?) AND revoked_at IS NULL")
      .bind(Date.now() - 1, address)
      .run();
    expect((await c.fetch("/dashboard")).status).toBe(303);
  });
});

describe("CSRF and page security", () => {
  it("refuses a form posted from another origin, without a token, or with a wrong token", async () => {
    const b = new Browser();
    await b.signIn(email());
    const csrf = await b.csrf("/tokens");
    const foreign = await b.fetch("/tokens", { method: "POST", form: { _csrf: csrf, name: "x" }, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const missing = await b.fetch("/tokens", { method: "POST", form: { name: "x" } });
    expect(missing.status).toBe(403);
    // The last character changed to another one (never to itself, which would be the right token).
    const wrongToken = `${csrf.slice(0, 31)}${csrf.endsWith("x") ? "y" : "x"}`;
    const wrong = await b.fetch("/tokens", { method: "POST", form: { _csrf: wrongToken, name: "x" } });
    expect(wrong.status).toBe(403);
    const html = await (await b.fetch("/tokens")).text();
    expect(html).not.toContain(">x<");
  });

  it("serves pages with a CSP without inline script, no framing, no-store, and escapes output", async () => {
    const b = new Browser();
    await b.signIn(email());
    const created = await b.post("/tokens", { name: `<script>alert(1)</script>`, scope: "read_only" }, "/tokens");
    const html = await created.text();
    expect(created.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(created.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    expect(created.headers.get("x-frame-options")).toBe("DENY");
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
  });
});

describe("tokens in the dashboard", () => {
  it("creates a token shown once that works on the API, lists it, and revokes it at once", async () => {
    const b = new Browser();
    await b.signIn(email());
    const res = await b.post("/tokens", { name: "CI", scope: "full" }, "/tokens");
    expect(res.status).toBe(201);
    const html = await res.text();
    const token = /<code id="token-value">(eam_[0-9A-Za-z]{40})<\/code>/.exec(html)?.[1] ?? "";
    expect(token).not.toBe("");
    expect(html).toContain(`curl -H &quot;Authorization: Bearer ${token}&quot; https://app.test/api/v1/me`);
    const me = await call("/api/v1/me", { token });
    expect(me.status).toBe(200);
    const list = await (await b.fetch("/tokens")).text();
    expect(list).toContain(token.slice(0, 12));
    expect(list).not.toContain(token);
    const id = idFrom(list, /action="\/tokens\/(\d+)\/revoke"/);
    expect((await b.post(`/tokens/${id}/revoke`, {}, "/tokens")).headers.get("location")).toBe("/tokens?revoked=1");
    expect((await call("/api/v1/me", { token })).status).toBe(401);
  });

  it("gives a 404 page for another team's token id and revokes nothing", async () => {
    const a = new Browser();
    const b = new Browser();
    await a.signIn(email());
    await b.signIn(email());
    const made = await (await a.post("/tokens", { name: "A's", scope: "full" }, "/tokens")).text();
    const token = /<code id="token-value">(eam_[0-9A-Za-z]{40})<\/code>/.exec(made)?.[1] ?? "";
    const id = idFrom(await (await a.fetch("/tokens")).text(), /action="\/tokens\/(\d+)\/revoke"/);
    const res = await b.post(`/tokens/${id}/revoke`, {}, "/tokens");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect((await call("/api/v1/me", { token })).status).toBe(200);
    expect((await b.post("/tokens/abc/revoke", {}, "/tokens")).status).toBe(404);
  });
});

describe("teams and members", () => {
  async function ownerWithViewer() {
    const owner = new Browser();
    const ownerEmail = email();
    await owner.signIn(ownerEmail);
    const viewerEmail = email();
    expect((await owner.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).headers.get("location")).toBe("/team?done=invited");
    const viewer = new Browser();
    const landed = await viewer.openLatestLink(viewerEmail);
    expect(landed.status).toBe(303);
    return { owner, viewer, ownerEmail, viewerEmail };
  }

  it("invites a viewer who signs in read-only: no controls, and every change refused", async () => {
    const { owner, viewer, viewerEmail } = await ownerWithViewer();
    const team = await (await viewer.fetch("/team")).text();
    expect(team).toContain(viewerEmail);
    expect(team).not.toContain('action="/team/invite"');
    const tokens = await (await viewer.fetch("/tokens")).text();
    expect(tokens).not.toContain('action="/tokens"');
    expect((await viewer.post("/tokens", { name: "nope", scope: "full" }, "/tokens")).status).toBe(403);
    expect((await viewer.post("/team/invite", { email: email(), role: "admin" }, "/team")).status).toBe(403);
    const ownerTokens = await (await owner.fetch("/tokens")).text();
    const id = idFrom(ownerTokens, /action="\/tokens\/(\d+)\/revoke"/);
    if (id) expect((await viewer.post(`/tokens/${id}/revoke`, {}, "/tokens")).status).toBe(403);
  });

  it("changes a role, hands the team over, removes a member, and lets a member leave", async () => {
    const { owner, viewer, viewerEmail } = await ownerWithViewer();
    const page = await (await owner.fetch("/team")).text();
    const viewerId = idFrom(page, /action="\/team\/members\/(\d+)\/role"/);
    expect((await owner.post(`/team/members/${viewerId}/role`, { role: "admin" }, "/team")).status).toBe(303);
    expect(await (await viewer.fetch("/team")).text()).toContain("(admin)");
    expect((await owner.post(`/team/members/${viewerId}/role`, { role: "owner" }, "/team")).status).toBe(303);
    const row = await env.DB.prepare(
      "SELECT t.owner_email FROM teams t JOIN memberships m ON m.team_id = t.id JOIN users u ON u.id = m.user_id WHERE u.email = ? AND m.role = 'owner'",
    )
      .bind(viewerEmail)
      .first<{ owner_email: string }>();
    expect(row?.owner_email).toBe(viewerEmail);
    expect((await owner.post("/team/leave", {}, "/team")).status).toBe(303);
    expect(await (await owner.fetch("/team")).text()).not.toContain(viewerEmail);
  });

  it("refuses member management to a non-owner and another team's member id", async () => {
    const { owner, viewer } = await ownerWithViewer();
    const stranger = new Browser();
    await stranger.signIn(email());
    const page = await (await owner.fetch("/team")).text();
    const viewerId = idFrom(page, /action="\/team\/members\/(\d+)\/role"/);
    expect((await stranger.post(`/team/members/${viewerId}/remove`, {}, "/team")).status).toBe(404);
    expect((await viewer.post(`/team/members/${viewerId}/remove`, {}, "/team")).status).toBe(403);
    expect(await (await owner.fetch("/team")).text()).toContain(`/team/members/${viewerId}/role`);
  });

  it("switches between teams the user belongs to, and not into another team", async () => {
    const b = new Browser();
    await b.signIn(email());
    expect((await b.post("/teams", { name: "Second team" }, "/team")).headers.get("location")).toBe("/team?done=created");
    expect(await (await b.fetch("/team")).text()).toContain("Second team");
    const other = new Browser();
    await other.signIn(email());
    const otherId = Number(/<option value="(\d+)" selected/.exec(await (await other.fetch("/dashboard")).text())?.[1]);
    expect((await b.post("/teams/switch", { team_id: String(otherId) })).status).toBe(404);
  });

  it("deletes the team only with its name typed, owner only", async () => {
    const { owner, viewer } = await ownerWithViewer();
    expect((await viewer.post("/team/delete", { confirm: "x" }, "/team")).status).toBe(403);
    expect((await owner.post("/team/delete", { confirm: "wrong" }, "/team")).status).toBe(422);
  });
});

describe("dev outbox", () => {
  it("is a 404 unless DEV_OUTBOX is on", async () => {
    const res = await call("/dev/outbox");
    expect(res.status).toBe(404);
    const on = await new Browser().fetch("/dev/outbox");
    expect(on.status).toBe(200);
  });
});

describe("unknown paths", () => {
  it("answers a browser with a 404 page and an API client with the error envelope", async () => {
    const page = await new Browser().fetch("/no-such-page", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await page.text()).toContain("There is no page at this address.");
    const api = await call("/no-such-thing.json", { headers: { accept: "application/json" } });
    expect(api.status).toBe(404);
    expect(await json(api)).toMatchObject({ code: "not_found" });
  });
});
