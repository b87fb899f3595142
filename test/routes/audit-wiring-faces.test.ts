// Who did what, through the other faces (issue 33 §1, docs/audit.md "Verbs"): the dashboard (a member's
// session with CSRF, sign-in and sign-out, invitations, roles, tokens), the agent endpoint (the official
// MCP client, with a team token and with an OAuth grant), and the rule that no write route of the OpenAPI
// documents lacks its verb: a future write that forgets its entry fails here.
import auditDoc from "../../docs/audit.md?raw";
import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, json, makeTeam, unique } from "../support/api";
import { allowAgent } from "../support/agent-grants";
import { Browser } from "../support/browser";
import { newDomainName } from "../support/monitoring";
import { mcpClient } from "../support/oauth-flow";
import { callTool, connect, dataOf } from "../mcp/support";
import { entriesOf } from "../services/audit-wiring-support";

const email = () => `${unique("aw").toLowerCase()}@example.com`;
const userIdOf = async (address: string) => (await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(address).first<{ id: number }>())?.id;
const teamOf = async (address: string) =>
  (await env.DB.prepare("SELECT m.team_id AS id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ?").bind(address).first<{ id: number }>())
    ?.id;

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

describe("the dashboard", () => {
  it("records sign-in, invitation, joining, role changes, tokens and sign-out with the member, their address and browser", async () => {
    const ownerEmail = email();
    const owner = new Browser("198.51.100.7");
    await owner.signIn(ownerEmail);
    const teamId = await teamOf(ownerEmail);
    if (!teamId) throw new Error("no team");
    const ownerId = String(await userIdOf(ownerEmail));

    const invitee = email();
    expect((await owner.post("/team/invite", { email: invitee, role: "admin" }, "/team")).status).toBe(303);
    const member = new Browser("198.51.100.8");
    expect((await member.openLatestLink(invitee)).status).toBe(303);
    const memberId = String(await userIdOf(invitee));

    // admin -> viewer (confirmed), then the same again: the second changes nothing and records nothing.
    for (let i = 0; i < 2; i++) expect((await owner.post(`/team/members/${memberId}/role`, { role: "viewer", confirmed: "yes" }, "/team")).status).toBe(303);
    // A viewer's refused write records nothing.
    expect((await member.post("/tokens", { name: "nope", scope: "full" }, "/tokens")).status).toBe(403);
    const made = await (await owner.post("/tokens", { name: "Deploy", scope: "full" }, "/tokens")).text();
    const tokenValue = /id="token-value">(eam_[0-9A-Za-z]{40})</.exec(made)?.[1] ?? "";
    expect(tokenValue).not.toBe("");
    expect((await member.post("/sign-out/everywhere", {}, "/dashboard")).status).toBe(303);
    expect((await owner.post("/sign-out", {}, "/dashboard")).status).toBe(303);

    const rows = await entriesOf(teamId);
    expect(rows.map((e) => [e.verb, e.actor_id, e.summary])).toEqual([
      ["team.create", ownerId, `team "${ownerEmail.slice(0, ownerEmail.indexOf("@"))}'s team" on the starter plan, owned by ${ownerEmail}`],
      ["sign_in", ownerId, `method=email_link email=${ownerEmail}`],
      ["member.invite", ownerId, `${invitee} invited as admin`],
      ["member.join", memberId, `${invitee} joined as admin by invitation`],
      ["sign_in", memberId, `method=email_link email=${invitee}`],
      ["member.role_change", ownerId, `role admin -> viewer for ${invitee}; the tokens and agent grants they made for the team revoked`],
      ["token.create", ownerId, expect.stringMatching(/^token "Deploy" \(eam_[0-9A-Za-z]{8}…\), full$/)],
      ["sign_out_everywhere", memberId, `${invitee} signed out everywhere: 1 session ended`],
      ["sign_out", ownerId, `${ownerEmail} signed out`],
    ]);
    for (const e of rows) {
      expect(e.actor_kind).toBe("member");
      expect(e.face).toBe("dashboard");
      expect(e.actor_label).toBe(e.actor_id === ownerId ? ownerEmail : invitee);
      expect(e.ip).toBe(e.actor_id === ownerId ? "198.51.100.7" : "198.51.100.8");
    }
    expect(JSON.stringify(rows)).not.toContain(tokenValue.slice(12));
  });
});

describe("the dashboard's owner actions", () => {
  it("records a cancelled invitation, a removal, a hand-over, the digest settings and an agent grant revoked", async () => {
    const ownerEmail = email();
    const owner = new Browser();
    await owner.signIn(ownerEmail);
    const teamId = await teamOf(ownerEmail);
    if (!teamId) throw new Error("no team");

    const never = email();
    await owner.post("/team/invite", { email: never, role: "viewer" }, "/team");
    const link = await env.DB.prepare("SELECT id FROM sign_in_links WHERE email = ? AND purpose = 'invite'").bind(never).first<{ id: number }>();
    for (let i = 0; i < 2; i++) await owner.post(`/team/invitations/${link?.id}/cancel`, {}, "/team");

    const a = email();
    await owner.post("/team/invite", { email: a, role: "admin" }, "/team");
    expect((await new Browser().openLatestLink(a)).status).toBe(303);
    const b = email();
    await owner.post("/team/invite", { email: b, role: "admin" }, "/team");
    expect((await new Browser().openLatestLink(b)).status).toBe(303);
    expect((await owner.post(`/team/members/${await userIdOf(a)}/remove`, {}, "/team")).status).toBe(303);
    expect(
      (await owner.post("/settings/notifications/digest/team", { time_zone: "Europe/Paris", hour: "7", weekday: "5" }, "/settings/notifications/digest"))
        .status,
    ).toBe(303);

    const agent = await allowAgent(owner, "read_only");
    const listing = await (await owner.fetch("/settings/agents")).text();
    const grantId = /\/settings\/agents\/([^/"]+)\/revoke/.exec(listing)?.[1];
    expect(grantId).toBeTruthy();
    expect((await owner.post(`/settings/agents/${grantId}/revoke`, {}, "/settings/agents")).status).toBe(303);
    expect((await owner.post(`/team/members/${await userIdOf(b)}/role`, { role: "owner" }, "/team")).status).toBe(303);

    const rows = (await entriesOf(teamId)).filter((e) => !["sign_in", "member.invite", "member.join", "team.create"].includes(e.verb));
    expect(rows.map((e) => [e.verb, e.target_type, e.target_id, e.summary])).toEqual([
      ["member.invitation_cancel", "member", never, `invitation of ${never} as viewer cancelled`],
      ["member.remove", "member", a, `${a} (admin) removed; the tokens and agent grants they made for the team revoked`],
      ["digest_settings.update", "team", String(teamId), "digests at 07:00 Europe/Paris, weekly ones on Friday"],
      ["agent_grant.create", "agent_client", agent.clientId, `read_only access given to agent "Test Desktop" by ${ownerEmail}`],
      ["agent_grant.revoke", "agent_grant", grantId, `read_only access of agent "Test Desktop" given by ${ownerEmail} revoked`],
      ["team.hand_over", "member", b, `owner ${ownerEmail} -> ${b}; ${ownerEmail} is now admin`],
    ]);
    for (const e of rows) expect(e).toMatchObject({ actor_kind: "member", actor_label: ownerEmail, face: "dashboard" });
  });
});

describe("the agent endpoint", () => {
  it("records a tool's write with a team token as actor, face agent", async () => {
    const team = await makeTeam();
    client = await connect(team.full);
    const name = newDomainName();
    const added = dataOf<{ id: number }>(await callTool(client, "add_domain", { name }));
    const refused = await callTool(client, "add_domain", { name });
    expect(refused.isError).toBe(true);
    const rows = await entriesOf(team.id, "domain.create");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor_kind: "token",
      actor_id: String(team.fullTokenId),
      face: "agent",
      target_id: String(added.id),
      summary: `added ${name}`,
    });
  });

  it("records the grant given on the consent page and the agent's writes under its grant", async () => {
    const ownerEmail = email();
    const b = new Browser();
    await b.signIn(ownerEmail);
    const teamId = await teamOf(ownerEmail);
    if (!teamId) throw new Error("no team");
    const agent = await allowAgent(b, "full");
    client = await mcpClient(agent.accessToken);
    const name = newDomainName();
    dataOf(await callTool(client, "add_domain", { name }));

    const granted = await entriesOf(teamId, "agent_grant.create");
    expect(granted).toHaveLength(1);
    expect(granted[0]).toMatchObject({ actor_kind: "member", face: "dashboard", target_type: "agent_client", target_id: agent.clientId });
    expect(granted[0]?.summary).toBe(`full access given to agent "Test Desktop" by ${ownerEmail}`);
    const created = await entriesOf(teamId, "domain.create");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      actor_kind: "agent",
      actor_id: `user:${await userIdOf(ownerEmail)}`,
      face: "agent",
      actor_label: `Test Desktop (granted by ${ownerEmail})`,
    });
  });
});

/**
 * Every write route of the two OpenAPI documents, with the verb its change records (docs/audit.md "Verbs"),
 * or why it records none. A new POST/PUT/PATCH/DELETE route fails the test below until it is listed here.
 */
const WRITE_ROUTES: Record<string, string | { none: string }> = {
  "POST /api/v1/domains": "domain.create",
  "DELETE /api/v1/domains/{domain}": "domain.delete",
  "POST /api/v1/domains/{domain}/verify": "domain.verify",
  "POST /api/v1/domains/{domain}/check": "domain.check",
  "POST /api/v1/domains/{domain}/dkim/selectors": "dkim_selector.add",
  "DELETE /api/v1/domains/{domain}/dkim/selectors/{selector}": "dkim_selector.delete",
  "PUT /api/v1/domains/{domain}/mta-sts-hosting": "mta_sts_hosting.enable",
  "DELETE /api/v1/domains/{domain}/mta-sts-hosting": "mta_sts_hosting.disable",
  "POST /api/v1/domains/{domain}/mta-sts-hosting/enforce": "mta_sts_hosting.enforce",
  "PUT /api/v1/domains/{domain}/bimi-hosting/logo": "bimi_hosting.logo_upload",
  "PUT /api/v1/domains/{domain}/bimi-hosting/certificate": "bimi_hosting.certificate_upload",
  "DELETE /api/v1/domains/{domain}/bimi-hosting": "bimi_hosting.delete",
  "POST /api/v1/alerts/{alert}/resolve": "alert.resolve",
  "POST /api/v1/webhooks": "webhook_endpoint.create",
  "PATCH /api/v1/webhooks/{webhook}": "webhook_endpoint.update",
  "DELETE /api/v1/webhooks/{webhook}": "webhook_endpoint.delete",
  "POST /api/v1/webhooks/{webhook}/test": "webhook_endpoint.test",
  "POST /api/v1/webhooks/{webhook}/rotate-secret": "webhook_endpoint.rotate_secret",
  "POST /api/v1/webhooks/{webhook}/deliveries/{delivery}/redeliver": "webhook_delivery.redeliver",
  "POST /api/v1/notification-channels": "notification_channel.create",
  "PATCH /api/v1/notification-channels/{channel}": "notification_channel.update",
  "DELETE /api/v1/notification-channels/{channel}": "notification_channel.delete",
  "POST /api/v1/notification-channels/{channel}/test": "notification_channel.test",
  "POST /api/v1/notification-channels/{channel}/confirmation": "notification_channel.resend_confirmation",
  "POST /api/v1/notification-channels/{channel}/rules": "notification_rule.create",
  "DELETE /api/v1/notification-channels/{channel}/rules/{rule}": "notification_rule.delete",
  "POST /api/v1/dkim/verify": { none: "compute only: verifies a pasted message, changes nothing" },
  "POST /api/v1/dkim/generate": { none: "compute only: the key pair is returned, never stored" },
  "POST /api/v1/intel/emails": { none: "compute only: checks addresses, changes nothing" },
  "POST /api/v1/messages/audit": { none: "compute only: judges a pasted message, changes nothing" },
  "POST /api/webhooks/dmarc": { none: "report ingestion: a report the team receives, kept with its source (D242)" },
  "POST /api/webhooks/tlsrpt/{token}": { none: "report ingestion: a report the team receives, kept with its source (D242)" },
  "POST /admin/teams": "team.create",
  "POST /admin/teams/{team}/tokens": "token.create",
  "DELETE /admin/tokens/{token_id}": "token.revoke",
  "PATCH /admin/teams/{team}": "team.plan_change",
};

/** Write operations of an OpenAPI document as "METHOD path" (the webhooks section describes calls we make, not routes). */
function writeOperations(doc: { paths: Record<string, Record<string, unknown>> }, prefix = ""): string[] {
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) if (["post", "put", "patch", "delete"].includes(method)) out.push(`${method.toUpperCase()} ${prefix}${path}`);
  }
  return out.sort();
}

describe("no write route without its audit verb", () => {
  it("maps every POST, PUT, PATCH and DELETE of /api/v1 and /admin to a verb named in docs/audit.md, or to why it records nothing", async () => {
    const api = await json<{ paths: Record<string, Record<string, unknown>> }>(await call("/api/v1/openapi.json"));
    const admin = await json<{ paths: Record<string, Record<string, unknown>> }>(await call("/admin/openapi.json", { token: ADMIN_TOKEN }));
    const adminPaths = Object.fromEntries(Object.entries(admin.paths).map(([p, ops]) => [p.replace(/^\/admin/, ""), ops]));
    const routes = [...writeOperations(api), ...writeOperations({ paths: adminPaths }, "/admin")];
    expect(routes.length).toBeGreaterThan(20);
    const unmapped = routes.filter((r) => !(r in WRITE_ROUTES));
    expect(unmapped, "write routes without an audit verb: add each to WRITE_ROUTES and to docs/audit.md").toEqual([]);
    const stale = Object.keys(WRITE_ROUTES).filter((r) => !routes.includes(r));
    expect(stale, "listed routes that no document has").toEqual([]);
    // Each verb is in the table of docs/audit.md "## Verbs" (as `verb` in its first column).
    const table = auditDoc.slice(auditDoc.indexOf("## Verbs"));
    const undocumented = [...new Set(Object.values(WRITE_ROUTES).filter((v) => typeof v === "string"))].filter((v) => !table.includes(`| \`${v}\``));
    expect(undocumented, "verbs missing from docs/audit.md ## Verbs").toEqual([]);
  });
});
