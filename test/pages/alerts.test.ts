// The alerts page through the Worker's real fetch export: open and resolved tabs, resolving (once,
// with its event), pagination bounds, viewers without the button and refused, another team's alert a
// 404 page, signed out sent to sign-in.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unique } from "../support/api";
import { Browser, signedInOwner } from "../support/browser";
import { insertDomain } from "../support/factories";
import { outboxAndLogEvents } from "../support/webhooks";

const email = () => `${unique("al").toLowerCase()}@example.com`;

const signedIn = () => signedInOwner("al");

async function insertAlert(teamId: number, domainId: number, title: string, o: { resolved?: boolean; subject?: string } = {}) {
  const now = Date.now();
  const row = await env.DB.prepare(
    "INSERT INTO alerts (team_id, domain_id, kind, subject, severity, title, body, occurrences, created_at, updated_at, resolved_at) VALUES (?, ?, 'drift', ?, 'High', ?, 'The DMARC policy changed.', 2, ?, ?, ?) RETURNING id",
  )
    .bind(teamId, domainId, o.subject ?? unique("dmarc.policy"), title, now, now, o.resolved ? now : null)
    .first<{ id: number }>();
  return row?.id ?? 0;
}

const resolvedAt = async (id: number) => (await env.DB.prepare("SELECT resolved_at AS r FROM alerts WHERE id = ?").bind(id).first<{ r: number | null }>())?.r;

describe("alerts page", () => {
  it("sends a signed-out visitor to sign-in and refuses a signed-out resolve", async () => {
    const res = await new Browser().fetch("/alerts?page=2");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/alerts?page=2")}`);
    expect((await new Browser().fetch("/alerts/resolved")).status).toBe(303);
    expect((await new Browser().fetch("/alerts/1/resolve", { method: "POST", form: {} })).status).toBe(303);
  });

  it("lists open alerts with a resolve button, resolves one (once, with its event) and shows it under Resolved", async () => {
    const { b, teamId } = await signedIn();
    const empty = await (await b.fetch("/alerts")).text();
    expect(empty).toContain("No open alerts.");
    const domain = await insertDomain(teamId);
    const id = await insertAlert(teamId, domain.id, "DMARC policy weakened");
    const old = await insertAlert(teamId, domain.id, "Old resolved alert", { resolved: true });
    const open = await (await b.fetch("/alerts")).text();
    expect(open).toContain("DMARC policy weakened");
    expect(open).toContain(`href="/domains/${domain.id}"`);
    expect(open).toContain(`action="/alerts/${id}/resolve"`);
    expect(open).toContain("2 times");
    expect(open).not.toContain("Old resolved alert");
    expect(open).toContain("1 open alert<");
    const done = await b.post(`/alerts/${id}/resolve`, {}, "/alerts");
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/alerts?resolved=1");
    expect(await resolvedAt(id)).toBeGreaterThan(0);
    expect(await (await b.fetch("/alerts?resolved=1")).text()).toContain("The alert was resolved.");
    const resolved = await (await b.fetch("/alerts/resolved")).text();
    expect(resolved).toContain("DMARC policy weakened");
    expect(resolved).toContain("Old resolved alert");
    expect(resolved).not.toContain(`action="/alerts/${id}/resolve"`);
    expect((await b.post(`/alerts/${id}/resolve`, {}, "/alerts")).status).toBe(303);
    const events = { n: (await outboxAndLogEvents({ teamId })).filter((e) => e.type === "alert.resolved").length };
    expect(events?.n).toBe(1);
    expect(old).toBeGreaterThan(0);
  });

  it("pages through alerts and answers an out-of-range page with a 422 page", async () => {
    const { b, teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    for (let i = 0; i < 27; i++) await insertAlert(teamId, domain.id, `Alert number ${i}`);
    const first = await (await b.fetch("/alerts")).text();
    expect(first).toContain("Page 1 of 2");
    expect(first).toContain('href="/alerts?page=2"');
    const second = await (await b.fetch("/alerts?page=2")).text();
    expect(second).toContain("Page 2 of 2");
    expect((await b.fetch("/alerts?page=0")).status).toBe(422);
    expect((await b.fetch("/alerts?per_page=500")).status).toBe(422);
  });

  it("refuses a bad id, a missing CSRF token and a cross-site post", async () => {
    const { b, teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    const id = await insertAlert(teamId, domain.id, "Needs a token");
    expect((await b.post("/alerts/abc/resolve", {}, "/alerts")).status).toBe(404);
    expect((await b.post("/alerts/999999999/resolve", {}, "/alerts")).status).toBe(404);
    expect((await b.fetch(`/alerts/${id}/resolve`, { method: "POST", form: {} })).status).toBe(403);
    const csrf = await b.csrf("/alerts");
    expect((await b.fetch(`/alerts/${id}/resolve`, { method: "POST", form: { _csrf: csrf }, origin: "https://evil.test" })).status).toBe(403);
    expect(await resolvedAt(id)).toBeNull();
  });

  it("shows a viewer every alert without the button and refuses the resolve with 403", async () => {
    const { b: owner, teamId } = await signedIn();
    const viewerEmail = email();
    expect((await owner.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).status).toBe(303);
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    const domain = await insertDomain(teamId);
    const id = await insertAlert(teamId, domain.id, "Seen by the viewer");
    const page = await (await viewer.fetch("/alerts")).text();
    expect(page).toContain("Seen by the viewer");
    expect(page).not.toContain(`action="/alerts/${id}/resolve"`);
    expect(page).not.toContain(">Resolve<");
    expect((await viewer.post(`/alerts/${id}/resolve`, {}, "/alerts")).status).toBe(403);
    expect(await resolvedAt(id)).toBeNull();
  });

  it("answers another team's alert with a 404 page and does not list it", async () => {
    const { teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    const id = await insertAlert(teamId, domain.id, "Belongs to the first team");
    const { b: other } = await signedIn();
    expect(await (await other.fetch("/alerts")).text()).not.toContain("Belongs to the first team");
    const res = await other.post(`/alerts/${id}/resolve`, {}, "/alerts");
    expect(res.status).toBe(404);
    expect(await resolvedAt(id)).toBeNull();
  });
});
