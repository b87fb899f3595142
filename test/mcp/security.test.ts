// The agent endpoint's credentials and limits: no or bad credential (401 with the RFC 9728 pointer),
// read-only tokens on write tools, another team's ids, the per-minute limit and the monthly quota
// counted through the same Durable Object as REST.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { awaitFreshMinute, call, json, makeTeam } from "../support/api";
import { addDomain } from "../support/monitoring";
import { callTool, connect, dataOf, errorOf, MCP_URL, ORIGIN, rawPost } from "./support";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("credentials", () => {
  it("answers 401 with the protected-resource metadata pointer without a credential or with a bad one", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer eam_0000000000000000000000000000000000000000" },
      { authorization: "Bearer nonsense" },
    ]) {
      const res = await rawPost(INIT, headers);
      expect(res.status).toBe(401);
      const challenge = res.headers.get("www-authenticate") ?? "";
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`);
    }
    const meta = await json<{ resource: string; authorization_servers: string[] }>(await call("/.well-known/oauth-protected-resource/mcp"));
    expect(meta.resource).toBe(MCP_URL);
    expect(meta.authorization_servers).toEqual([ORIGIN]);
  });

  it("refuses a revoked team token", async () => {
    const team = await makeTeam();
    const revoke = await call(`/admin/tokens/${team.fullTokenId}`, { method: "DELETE", token: "test-admin-token-0123456789abcdefghijklmnop" });
    expect(revoke.status).toBe(204);
    expect((await rawPost(INIT, { authorization: `Bearer ${team.full}` })).status).toBe(401);
  });

  it("lets a read-only token read and compute, and refuses every write tool with a tool error saying so", async () => {
    const team = await makeTeam();
    const domain = await addDomain(team);
    const client = await connect(team.readOnly);
    expect(dataOf<Array<{ id: number }>>(await callTool(client, "list_domains")).map((d) => d.id)).toEqual([domain.id]);
    expect(dataOf(await callTool(client, "generate_dkim_key", { domain: "example.com", selector: "s1", algorithm: "ed25519" }))).toMatchObject({
      algorithm: "ed25519",
    });
    const writes: Array<[string, Record<string, unknown>]> = [
      ["add_domain", { name: "example.org" }],
      ["verify_domain", { domain_id: domain.id }],
      ["check_domain", { domain_id: domain.id }],
      ["delete_domain", { domain_id: domain.id }],
      ["resolve_alert", { alert_id: 1 }],
      ["test_webhook", { webhook_id: 1 }],
      ["redeliver_webhook_delivery", { webhook_id: 1, delivery_id: 1 }],
    ];
    for (const [name, args] of writes) {
      const error = errorOf(await callTool(client, name, args));
      expect(error.code, name).toBe("forbidden");
      expect(error.message).toContain("read-only");
    }
    const still = await call(`/api/v1/domains/${domain.id}`, { token: team.full });
    expect(still.status, "nothing was deleted").toBe(200);
    await client.close();
  });

  it("marks the destructive tool and the read-only ones with the protocol's hints", async () => {
    const team = await makeTeam();
    const client = await connect(team.full);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("delete_domain")?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(byName.get("list_domains")?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get("add_domain")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const t of tools) {
      expect(t.description?.length, t.name).toBeGreaterThan(60);
      expect(t.inputSchema.type).toBe("object");
    }
    await client.close();
  });
});

describe("teams are apart", () => {
  it("a token of team A never sees team B: its ids are not found and its lists are absent", async () => {
    const a = await makeTeam();
    const b = await makeTeam();
    const bDomain = await addDomain(b);
    const aDomain = await addDomain(a);
    const client = await connect(a.full);
    expect(dataOf<Array<{ id: number }>>(await callTool(client, "list_domains")).map((d) => d.id)).toEqual([aDomain.id]);
    for (const [name, args] of [
      ["get_domain_posture", { domain_id: bDomain.id }],
      ["delete_domain", { domain_id: bDomain.id }],
      ["verify_domain", { domain_id: bDomain.id }],
      ["check_domain", { domain_id: bDomain.id }],
      ["list_domain_checks", { domain_id: bDomain.id }],
      ["list_domain_diffs", { domain_id: bDomain.id }],
      ["get_dkim_overview", { domain_id: bDomain.id }],
      ["get_dmarc_summary", { domain_id: bDomain.id }],
    ] as const) {
      expect(errorOf(await callTool(client, name, args)).code, name).toBe("not_found");
    }
    await expect(client.readResource({ uri: `emailauth://domains/${bDomain.id}/posture` })).rejects.toThrow(/not found/i);
    const { resources } = await client.listResources();
    expect(resources.some((r) => r.uri.includes(`/${bDomain.id}/`))).toBe(false);
    const bStill = await call(`/api/v1/domains/${bDomain.id}`, { token: b.full });
    expect(bStill.status).toBe(200);
    await client.close();
  });
});

describe("limits", () => {
  it("counts each tool call against the per-minute limit shared with REST and refuses the excess with the retry time", async () => {
    const team = await makeTeam("starter");
    await awaitFreshMinute(25);
    const client = await connect(team.full);
    for (let i = 0; i < 30; i++) expect((await call("/api/v1/me", { token: team.full })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 45 }, () => callTool(client, "list_domains")));
    const refused = results.filter((r) => r.isError);
    expect(results.length - refused.length, "REST and MCP share one budget of 60").toBe(30);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      const e = errorOf(r);
      expect(e.code).toBe("rate_limited");
      expect(e.retry_after_seconds).toBeGreaterThanOrEqual(1);
      expect(e.retry_after_seconds).toBeLessThanOrEqual(60);
      expect(JSON.stringify(r.content)).toMatch(/Retry after \d+ seconds/);
    }
    const rest = await call("/api/v1/me", { token: team.full });
    expect(rest.status, "REST sees the same spent window").toBe(429);
    await client.close();
  }, 45_000);

  it("refuses calls once the monthly quota is spent, with quota_exceeded", async () => {
    const team = await makeTeam("starter");
    await runInDurableObject(env.RATE_LIMITER.getByName(`team:${team.id}`), (_instance, state) => {
      const now = new Date();
      state.storage.kv.put(`quota:${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`, 9_999);
    });
    const client = await connect(team.full);
    expect((await callTool(client, "list_domains")).isError).toBeFalsy();
    const over = errorOf(await callTool(client, "list_domains"));
    expect(over.code).toBe("quota_exceeded");
    expect(over.retry_after_seconds).toBeGreaterThan(0);
    expect((await call("/api/v1/me", { token: team.full })).status).toBe(429);
    await client.close();
  });
});
