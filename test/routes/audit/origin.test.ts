// The origin of an audit entry through each face, driven through the Worker's real exports: REST with a
// team token, a dashboard form post, an agent tool over MCP (team token and OAuth grant, with the official
// SDK client), the operator's admin API, and scheduled work. Who (label, kind, id), the face, the client
// address (CF-Connecting-IP only) and the user agent are what the log shows (docs/audit.md).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { ADMIN_TOKEN, call, json, makeTeam } from "../../support/api";
import { Browser, signedInOwner } from "../../support/browser";
import { installDohStub } from "../../support/doh-stub";
import { authorized } from "../../support/oauth-flow";
import { addDomain } from "../../support/monitoring";

interface Row {
  seq: number;
  actor_kind: string;
  actor_id: string;
  actor_label: string;
  face: string;
  verb: string;
  ip: string | null;
  user_agent: string | null;
  hash: string | null;
}
const entries = async (teamId: number, verb: string) =>
  (await env.DB.prepare("SELECT * FROM audit_entries WHERE team_id = ? AND verb = ? ORDER BY seq").bind(teamId, verb).all<Row>()).results;
const prefixOf = async (tokenId: number) => (await env.DB.prepare("SELECT prefix FROM tokens WHERE id = ?").bind(tokenId).first<{ prefix: string }>())?.prefix;

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

async function mcp(token: string, headers: Record<string, string>): Promise<Client> {
  const c = new Client({ name: "origin-test", version: "1.0.0" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL("https://app.test/mcp"), {
      fetch: (input, init) => exports.default.fetch(new Request(input, init)),
      requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
    }),
  );
  return c;
}

describe("audit origin by face", () => {
  it("REST: the token's name and prefix, face api, CF-Connecting-IP and the user agent; X-Forwarded-For is ignored", async () => {
    const team = await makeTeam();
    const res = await call("/api/v1/domains", {
      method: "POST",
      token: team.full,
      body: { name: `origin-${crypto.randomUUID().slice(0, 8)}.com` },
      headers: { "cf-connecting-ip": "203.0.113.7", "x-forwarded-for": "10.9.9.9", "user-agent": "ci-script/1.2" },
    });
    expect(res.status).toBe(201);
    const [entry] = await entries(team.id, "domain.create");
    expect(entry).toMatchObject({
      actor_kind: "token",
      actor_id: String(team.fullTokenId),
      actor_label: `token Default full-access token (${await prefixOf(team.fullTokenId)})`,
      face: "api",
      ip: "203.0.113.7",
      user_agent: "ci-script/1.2",
    });
    // Sealed by the time the response was sent.
    expect(entry?.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("dashboard: the member's address, face dashboard, the browser's address", async () => {
    const { b, teamId, address } = await signedInOwner("origin");
    const res = await b.post("/tokens", { name: "deploy bot", scope: "full" }, "/tokens");
    expect(res.status).toBeLessThan(400);
    const created = (await entries(teamId, "token.create")).at(-1);
    expect(created).toMatchObject({ actor_kind: "member", actor_label: address, face: "dashboard", ip: b.ip });
    // The audit page shows who, and from where.
    const page = await (await b.fetch("/audit")).text();
    expect(page).toContain("deploy bot");
    expect(page).toContain(address);
    expect(page).toContain(b.ip);
  });

  it("agent with a team token: the token's label, face agent", async () => {
    const team = await makeTeam();
    client = await mcp(team.full, { "cf-connecting-ip": "2001:db8::42", "user-agent": "agent-host/3" });
    const result = await client.callTool({ name: "add_domain", arguments: { name: `agent-${crypto.randomUUID().slice(0, 8)}.com` } });
    expect(result.isError).toBeFalsy();
    const [entry] = await entries(team.id, "domain.create");
    expect(entry).toMatchObject({
      actor_kind: "token",
      actor_label: `token Default full-access token (${await prefixOf(team.fullTokenId)})`,
      face: "agent",
      ip: "2001:db8::42",
      user_agent: "agent-host/3",
    });
  });

  it("agent with an OAuth grant: the client's name and who granted it, face agent", async () => {
    const b = new Browser();
    const address = `grant-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await b.signIn(address);
    const { tokens } = await authorized(b, "full");
    const teamId = (
      await env.DB.prepare("SELECT m.team_id AS t FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ?").bind(address).first<{ t: number }>()
    )?.t;
    client = await mcp(tokens.access_token, { "cf-connecting-ip": "192.0.2.77" });
    const result = await client.callTool({ name: "add_domain", arguments: { name: `grant-${crypto.randomUUID().slice(0, 8)}.com` } });
    expect(result.isError).toBeFalsy();
    const [entry] = await entries(teamId ?? 0, "domain.create");
    expect(entry).toMatchObject({ actor_kind: "agent", actor_label: `Test Desktop (granted by ${address})`, face: "agent", ip: "192.0.2.77" });
    expect(entry?.actor_id).toMatch(/^user:\d+$/);
  });

  it("operator: the admin API, actor kind operator, face operator", async () => {
    const res = await call("/admin/teams", {
      method: "POST",
      token: ADMIN_TOKEN,
      body: { name: "origin team", plan: "pro", owner_email: "owner@example.com" },
      headers: { "cf-connecting-ip": "198.51.100.250", "user-agent": "ops-console" },
    });
    expect(res.status).toBe(201);
    const { data } = await json<{ data: { team: { id: number } } }>(res);
    const tokensMade = await entries(data.team.id, "token.create");
    expect(tokensMade).toHaveLength(2);
    for (const e of tokensMade)
      expect(e).toMatchObject({
        actor_kind: "operator",
        actor_id: "operator",
        actor_label: "the operator",
        face: "operator",
        ip: "198.51.100.250",
        user_agent: "ops-console",
      });
  });

  it("scheduled work: the service, face system, no address; the cron seals it", async () => {
    const team = await makeTeam();
    const d = await addDomain(team);
    const stub = installDohStub({ [d.verification.host]: { TXT: [d.verification.value] } });
    expect((await call(`/api/v1/domains/${d.id}/verify`, { method: "POST", token: team.full })).status).toBe(200);
    stub.restore();
    // The TXT record has been gone for four days and the daily re-check is due.
    await env.DB.prepare("UPDATE domains SET ownership_checked_at = NULL, ownership_missing_since = ? WHERE id = ?")
      .bind(Date.now() - 4 * 86_400_000, d.id)
      .run();
    const gone = installDohStub({});
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    gone.restore();
    const [entry] = await entries(team.id, "domain.unverify");
    expect(entry).toMatchObject({ actor_kind: "system", actor_id: "system", actor_label: "the service", face: "system", ip: null, user_agent: null });
    expect(entry?.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
