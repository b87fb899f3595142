// Links are never built from the Host header (docs/decisions.md D148), through the Worker's real fetch
// export: mail links, the tokens page's curl line and the agent page's endpoint come from SITE_URL; a
// deployment without SITE_URL refuses the first link-making action with a 503 that names the setting
// (and a log line) before any link exists; only local development (DEV_OUTBOX) may fall back, and only
// to a loopback request's own origin.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { unique } from "../support/api";
import { Browser, ORIGIN, signedInOwner } from "../support/browser";

const email = () => `${unique("su").toLowerCase()}@example.com`;
const FORGED = "https://evil.test";
/** A deployment that forgot SITE_URL (DEV_OUTBOX off, as in production). */
const PRODUCTION_WITHOUT_SITE_URL = { SITE_URL: "", DEV_OUTBOX: "" };

const linksTo = async (address: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM sign_in_links WHERE email = ?").bind(address).first<{ n: number }>())?.n ?? 0;
const lastMail = async (address: string) =>
  (await env.DB.prepare("SELECT body FROM dev_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1").bind(address).first<{ body: string }>())?.body ?? "";

describe("links come from SITE_URL, never from the Host header", () => {
  it("refuses a sign-in link outside local development without SITE_URL: a 503 page naming SITE_URL, a log line, no link", async () => {
    const logged = vi.spyOn(console, "error");
    const b = new Browser(undefined, { vars: PRODUCTION_WITHOUT_SITE_URL, origin: FORGED });
    const address = email();
    expect((await b.fetch("/sign-in")).status, "the form itself is shown").toBe(200);
    const res = await b.post("/sign-in", { email: address }, "/sign-in");
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain("SITE_URL");
    expect(html).not.toContain("evil.test/auth");
    expect(await linksTo(address), "no link was made").toBe(0);
    expect(logged.mock.calls.some((args) => String(args[0]).includes("SITE_URL is not set"))).toBe(true);
  });

  it("mails the SITE_URL link whatever Host the request carried", async () => {
    const b = new Browser(undefined, { origin: FORGED });
    const address = email();
    expect((await b.post("/sign-in", { email: address }, "/sign-in")).status).toBe(200);
    const body = await lastMail(address);
    expect(body).toContain(`${ORIGIN}/auth/link?token=`);
    expect(body).not.toContain("evil.test");
  });

  it("falls back to the request's origin in local development only for a loopback address", async () => {
    const local = new Browser(undefined, { vars: { SITE_URL: "", DEV_OUTBOX: "true" }, origin: "http://127.0.0.1:8787" });
    const address = email();
    expect((await local.post("/sign-in", { email: address }, "/sign-in")).status).toBe(200);
    expect(await lastMail(address)).toContain("http://127.0.0.1:8787/auth/link?token=");
    const forged = new Browser(undefined, { vars: { SITE_URL: "", DEV_OUTBOX: "true" }, origin: FORGED });
    const other = email();
    expect((await forged.post("/sign-in", { email: other }, "/sign-in")).status, "a non-loopback Host even in development").toBe(503);
    expect(await linksTo(other)).toBe(0);
  });

  it("refuses an invitation, a new token and the agent page without SITE_URL, before anything is made", async () => {
    const { b, teamId } = await signedInOwner("su");
    const tokensBefore = (await env.DB.prepare("SELECT COUNT(*) AS n FROM tokens WHERE team_id = ?").bind(teamId).first<{ n: number }>())?.n;
    b.opts.vars = PRODUCTION_WITHOUT_SITE_URL;
    const invited = email();
    const invite = await b.post("/team/invite", { email: invited, role: "viewer" }, "/team");
    expect(invite.status).toBe(503);
    expect(await invite.text()).toContain("SITE_URL");
    expect(await linksTo(invited)).toBe(0);
    const token = await b.post("/tokens", { name: "CI", scope: "full" }, "/dashboard");
    expect(token.status).toBe(503);
    expect(await token.text()).not.toMatch(/eam_[0-9A-Za-z]{40}/);
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM tokens WHERE team_id = ?").bind(teamId).first<{ n: number }>())?.n, "no token issued").toBe(
      tokensBefore,
    );
    expect((await b.fetch("/settings/agents")).status).toBe(503);
  });

  it("shows SITE_URL in the tokens page's curl line and the agent page's endpoint, not the Host the request named", async () => {
    const { b } = await signedInOwner("su");
    const forged = new Browser(b.ip, { origin: FORGED });
    for (const [k, v] of b.cookies) forged.cookies.set(k, v);
    const created = await forged.post("/tokens", { name: "CI", scope: "read_only" }, "/dashboard");
    expect(created.status).toBe(201);
    const html = await created.text();
    expect(html).toContain(`${ORIGIN}/api/v1/me`);
    expect(html).not.toContain("evil.test");
    const agents = await (await forged.fetch("/settings/agents")).text();
    expect(agents).toContain(`${ORIGIN}/mcp`);
    expect(agents).not.toContain("evil.test");
  });
});
