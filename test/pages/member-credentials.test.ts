// No credential outlives its owner or its team (docs/decisions.md D151-D154), through the Worker's real
// fetch export: tokens say who made them; removing a member, or making an admin a viewer, revokes the
// tokens and agent grants they made for the team at once (the confirmation page counts them first);
// owners and admins revoke other members' agent grants; a deleted team's tokens stop at once.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, json, makeTeam, unique } from "../support/api";
import { agentStatus, allowAgent, refreshes } from "../support/agent-grants";
import { Browser } from "../support/browser";

const email = () => `${unique("m").toLowerCase()}@example.com`;

/** An owner's team (made by the operator, with its two admin-API tokens) claimed by the owner's first sign-in. */
async function operatorTeam() {
  const ownerEmail = email();
  const res = await call("/admin/teams", { method: "POST", token: ADMIN_TOKEN, body: { name: unique("crew"), plan: "enterprise", owner_email: ownerEmail } });
  const { data } = await json<{ data: { team: { id: number; name: string }; tokens: { full: { token: string; id: number } } } }>(res);
  const owner = new Browser();
  await owner.signIn(ownerEmail);
  return { owner, ownerEmail, teamId: data.team.id, teamName: data.team.name, operatorToken: data.tokens.full.token, operatorTokenId: data.tokens.full.id };
}

/** Invites `role` and signs the new member in; returns their browser, address and user id. */
async function join(owner: Browser, role: "admin" | "viewer") {
  const address = email();
  expect((await owner.post("/team/invite", { email: address, role }, "/team")).status).toBe(303);
  const b = new Browser();
  expect((await b.openLatestLink(address)).status).toBe(303);
  const row = await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(address).first<{ id: number }>();
  if (!row) throw new Error("member not created");
  return { b, address, userId: row.id };
}

/** A token made on the dashboard's tokens page by the signed-in member. */
async function makeToken(b: Browser, name: string): Promise<string> {
  const html = await (await b.post("/tokens", { name, scope: "full" }, "/tokens")).text();
  const token = /id="token-value">(eam_[0-9A-Za-z]{40})</.exec(html)?.[1];
  if (!token) throw new Error("no token shown");
  return token;
}

const me = async (token: string) => (await call("/api/v1/me", { token })).status;
const revokedCount = async (teamId: number) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM tokens WHERE team_id = ? AND revoked_at IS NOT NULL").bind(teamId).first<{ n: number }>())?.n ?? 0;

describe("who made a token", () => {
  it("shows the member, the operator, or unknown for a token made before it was recorded", async () => {
    const { owner, ownerEmail, operatorTokenId } = await operatorTeam();
    await makeToken(owner, "owner's CI");
    await env.DB.prepare("UPDATE tokens SET created_by = NULL WHERE id = ?").bind(operatorTokenId).run(); // as before migration 0012
    const html = await (await owner.fetch("/tokens")).text();
    expect(html).toContain('<th scope="col">Made by</th>');
    const makers = [...html.matchAll(/<td class="token-maker">([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(makers).toEqual([ownerEmail, "operator", "unknown"]);
    const stored = await env.DB.prepare("SELECT created_by AS kind, created_by_user_id AS uid FROM tokens WHERE name = ?")
      .bind("owner's CI")
      .all<{ kind: string; uid: number }>();
    expect(stored.results.map((r) => r.kind)).toEqual(["member"]);
  });
});

describe("a member's tokens end with their place in the team", () => {
  it("removing an admin revokes the tokens they made at once, after a page that counts them", async () => {
    const { owner, teamId, operatorToken } = await operatorTeam();
    const admin = await join(owner, "admin");
    const adminToken = await makeToken(admin.b, "admin's script");
    const ownerToken = await makeToken(owner, "owner's script");
    const other = await makeTeam();
    expect(await me(adminToken)).toBe(200); // now cached in this isolate (D51)

    const confirm = await owner.fetch(`/team/members/${admin.userId}/remove`);
    expect(confirm.status).toBe(200);
    const page = await confirm.text();
    expect(page).toContain(`Remove ${admin.address}?`);
    expect(page).toContain("This also revokes 1 API token and 0 agent grants they created.");
    expect(page).toContain(`action="/team/members/${admin.userId}/remove"`);

    expect((await owner.post(`/team/members/${admin.userId}/remove`, {}, "/team")).headers.get("location")).toBe("/team?done=removed");
    expect(await me(adminToken)).toBe(401);
    expect(await me(ownerToken)).toBe(200);
    expect(await me(operatorToken)).toBe(200);
    expect(await me(other.full)).toBe(200);
    expect(await revokedCount(teamId)).toBe(1);
  });

  it("making an admin a viewer asks first, then revokes their tokens; a handover keeps the old owner's", async () => {
    const { owner, teamId } = await operatorTeam();
    const admin = await join(owner, "admin");
    const first = await makeToken(admin.b, "one");
    const second = await makeToken(admin.b, "two");
    const ownerToken = await makeToken(owner, "owner's");
    expect(await me(first)).toBe(200);

    const asked = await owner.post(`/team/members/${admin.userId}/role`, { role: "viewer" }, "/team");
    expect(asked.status).toBe(200);
    const page = await asked.text();
    expect(page).toContain(`Make ${admin.address} a viewer?`);
    expect(page).toContain("This also revokes 2 API tokens and 0 agent grants they created.");
    expect(await me(first), "nothing changes before the owner confirms").toBe(200);
    expect(
      (await env.DB.prepare("SELECT role FROM memberships WHERE team_id = ? AND user_id = ?").bind(teamId, admin.userId).first<{ role: string }>())?.role,
    ).toBe("admin");

    expect((await owner.post(`/team/members/${admin.userId}/role`, { role: "viewer", confirmed: "yes" }, "/team")).status).toBe(303);
    expect(await me(first)).toBe(401);
    expect(await me(second)).toBe(401);
    expect(await me(ownerToken)).toBe(200);

    // Back to admin, then the owner hands the team over: the old owner stays an admin and keeps their token.
    expect((await owner.post(`/team/members/${admin.userId}/role`, { role: "admin" }, "/team")).status).toBe(303);
    expect((await owner.post(`/team/members/${admin.userId}/role`, { role: "owner" }, "/team")).status).toBe(303);
    expect(await me(ownerToken)).toBe(200);
  });

  it("removing a viewer who made nothing revokes nothing else, and the page says so", async () => {
    const { owner, teamId, operatorToken } = await operatorTeam();
    const viewer = await join(owner, "viewer");
    const ownerToken = await makeToken(owner, "kept");
    const page = await (await owner.fetch(`/team/members/${viewer.userId}/remove`)).text();
    expect(page).toContain("They created no API tokens or agent grants on this team, so nothing else is revoked.");
    expect((await owner.post(`/team/members/${viewer.userId}/remove`, {}, "/team")).status).toBe(303);
    expect(await revokedCount(teamId)).toBe(0);
    expect(await me(ownerToken)).toBe(200);
    expect(await me(operatorToken)).toBe(200);
  });

  it("a member who leaves takes their tokens with them", async () => {
    const { owner } = await operatorTeam();
    const admin = await join(owner, "admin");
    const token = await makeToken(admin.b, "leaving");
    expect(await me(token)).toBe(200);
    expect((await admin.b.post("/team/leave", {}, "/team")).status).toBe(303);
    expect(await me(token)).toBe(401);
  });

  it("the confirmation page is the owner's, and another team's member is a 404", async () => {
    const { owner } = await operatorTeam();
    const admin = await join(owner, "admin");
    const viewer = await join(owner, "viewer");
    expect((await admin.b.fetch(`/team/members/${viewer.userId}/remove`)).status).toBe(403);
    const stranger = await operatorTeam();
    expect((await stranger.owner.fetch(`/team/members/${viewer.userId}/remove`)).status).toBe(404);
    expect((await stranger.owner.post(`/team/members/${admin.userId}/role`, { role: "viewer" }, "/team")).status).toBe(404);
    expect((await owner.fetch("/team/members/abc/remove")).status).toBe(404);
  });
});

describe("agent grants on the team", () => {
  it("the owner sees and revokes another member's grant; a viewer cannot (403); another team's grant is a 404", async () => {
    const { owner } = await operatorTeam();
    const admin = await join(owner, "admin");
    const viewer = await join(owner, "viewer");
    const agent = await allowAgent(admin.b);
    expect(await agentStatus(agent.accessToken)).toBe(200);

    const listed = await (await owner.fetch("/settings/agents")).text();
    expect(listed).toContain(`<td class="grant-maker">${admin.address}</td>`);
    const grantId = /action="\/settings\/agents\/([^"/]+)\/revoke"/.exec(listed)?.[1];
    if (!grantId) throw new Error("the owner does not see the admin's grant");

    expect(await (await viewer.b.fetch("/settings/agents")).text()).not.toContain(grantId);
    expect((await viewer.b.post(`/settings/agents/${grantId}/revoke`, {}, "/settings/agents")).status).toBe(403);
    const stranger = await operatorTeam();
    expect((await stranger.owner.post(`/settings/agents/${grantId}/revoke`, {}, "/settings/agents")).status).toBe(404);
    expect(await agentStatus(agent.accessToken)).toBe(200);

    expect((await owner.post(`/settings/agents/${grantId}/revoke`, {}, "/settings/agents")).headers.get("location")).toBe("/settings/agents?revoked=1");
    expect(await agentStatus(agent.accessToken)).toBe(401);
    expect(await refreshes(admin.b, agent)).toBe(false);
  });

  it("removing or demoting an admin revokes the grants they gave on the team, counted on the confirmation page", async () => {
    const { owner } = await operatorTeam();
    const removed = await join(owner, "admin");
    const demoted = await join(owner, "admin");
    const gone = await allowAgent(removed.b);
    // The removed admin's own team, with an agent of its own: not this team's, so it stays.
    expect((await removed.b.post("/teams", { name: unique("own") }, "/team")).status).toBe(303);
    const elsewhere = await allowAgent(removed.b);
    const narrowed = await allowAgent(demoted.b);
    const ownAgent = await allowAgent(owner);
    await makeToken(demoted.b, "demoted's");

    const page = await (await owner.fetch(`/team/members/${removed.userId}/remove`)).text();
    expect(page).toContain("This also revokes 0 API tokens and 1 agent grant they created.");
    expect((await owner.post(`/team/members/${removed.userId}/remove`, {}, "/team")).status).toBe(303);
    expect(await agentStatus(gone.accessToken)).toBe(401);
    expect(await refreshes(removed.b, gone)).toBe(false);
    expect(await agentStatus(elsewhere.accessToken)).toBe(200);
    expect(await refreshes(removed.b, elsewhere)).toBe(true);

    const asked = await (await owner.post(`/team/members/${demoted.userId}/role`, { role: "viewer" }, "/team")).text();
    expect(asked).toContain("This also revokes 1 API token and 1 agent grant they created.");
    expect((await owner.post(`/team/members/${demoted.userId}/role`, { role: "viewer", confirmed: "yes" }, "/team")).status).toBe(303);
    expect(await agentStatus(narrowed.accessToken)).toBe(401);
    expect(await refreshes(demoted.b, narrowed)).toBe(false);

    expect(await agentStatus(ownAgent.accessToken)).toBe(200);
    expect(await refreshes(owner, ownAgent)).toBe(true);
  });
});

describe("a deleted team's credentials", () => {
  it("stop at once: its tokens on REST and on /mcp, and its agent grants", async () => {
    const { owner, teamName, operatorToken } = await operatorTeam();
    const ownerToken = await makeToken(owner, "owner's");
    const agent = await allowAgent(owner);
    const other = await makeTeam();
    expect(await me(operatorToken)).toBe(200); // cached in this isolate (D51)
    expect(await me(ownerToken)).toBe(200);
    expect(await agentStatus(agent.accessToken)).toBe(200);

    expect((await owner.post("/team/delete", { confirm: teamName }, "/team")).status).toBe(303);
    const refused = await call("/api/v1/me", { token: operatorToken });
    expect(refused.status).toBe(401);
    expect((await json<{ code: string }>(refused)).code).toBe("unauthenticated");
    expect(await me(ownerToken)).toBe(401);
    expect(await agentStatus(operatorToken)).toBe(401);
    expect(await agentStatus(agent.accessToken)).toBe(401);
    expect(await refreshes(owner, agent)).toBe(false);
    expect(await me(other.full)).toBe(200);
  });
});
