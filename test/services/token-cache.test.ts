// The isolate's cache of verified team tokens (docs/decisions.md D51): a revocation or a plan change
// made through this isolate applies to the very next request; one made elsewhere (simulated here by
// writing D1 directly, as another isolate would) applies once the 30-second bound has passed.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { authenticateToken, TOKEN_CACHE_TTL_MS, touchToken } from "../../src/services/teams/tokens";
import { ADMIN_TOKEN, call, json, makeTeam } from "../support/api";

function servicesAt(start: number) {
  let now = start;
  const svc = createServices(env, { clock: { now: () => new Date(now) } });
  return { svc, advance: (ms: number) => (now += ms) };
}

describe("verified token cache", () => {
  it("keeps a token revoked by another isolate for at most the stated bound, then refuses it", async () => {
    const team = await makeTeam("pro");
    const { svc, advance } = servicesAt(Date.now());
    expect((await authenticateToken(svc, team.full))?.team.id).toBe(team.id);
    // Another isolate revokes: only D1 changes, this isolate's cache does not hear of it.
    await env.DB.prepare("UPDATE tokens SET revoked_at = ? WHERE id = ?").bind(Date.now(), team.fullTokenId).run();
    advance(TOKEN_CACHE_TTL_MS - 1);
    expect((await authenticateToken(svc, team.full))?.token.id, "still inside the bound").toBe(team.fullTokenId);
    advance(1);
    expect(await authenticateToken(svc, team.full)).toBeNull();
  });

  it("refuses a token whose team another isolate deleted once the bound has passed (the tokens go with the team, D153)", async () => {
    const team = await makeTeam("pro");
    const { svc, advance } = servicesAt(Date.now());
    expect((await authenticateToken(svc, team.full))?.team.id).toBe(team.id);
    await env.DB.prepare("DELETE FROM teams WHERE id = ?").bind(team.id).run();
    advance(TOKEN_CACHE_TTL_MS - 1);
    expect((await authenticateToken(svc, team.full))?.team.id, "still inside the bound").toBe(team.id);
    advance(1);
    expect(await authenticateToken(svc, team.full)).toBeNull();
  });

  it("forgets a token revoked through this isolate at once", async () => {
    const team = await makeTeam("pro");
    expect((await call("/api/v1/me", { token: team.full })).status).toBe(200);
    expect((await call(`/admin/tokens/${team.fullTokenId}`, { method: "DELETE", token: ADMIN_TOKEN })).status).toBe(204);
    const after = await call("/api/v1/me", { token: team.full });
    expect(after.status).toBe(401);
    expect((await json<{ code: string }>(after)).code).toBe("unauthenticated");
  });

  it("applies a plan change to the next request's limits", async () => {
    const team = await makeTeam("starter");
    const before = await call("/api/v1/me", { token: team.full });
    expect(before.headers.get("X-RateLimit-Limit")).toBe("60");
    expect((await call(`/admin/teams/${team.id}`, { method: "PATCH", token: ADMIN_TOKEN, body: { plan: "enterprise" } })).status).toBe(200);
    const after = await call("/api/v1/me", { token: team.full });
    expect(after.headers.get("X-RateLimit-Limit")).toBe("1200");
    expect((await json<{ data: { plan: string } }>(after)).data.plan).toBe("enterprise");
  });

  it("never caches an unknown token", async () => {
    const { svc } = servicesAt(Date.now());
    const unknown = `eam_${"A".repeat(40)}`;
    expect(await authenticateToken(svc, unknown)).toBeNull();
    expect(await authenticateToken(svc, unknown)).toBeNull();
  });

  it("writes last_used_at at most once a minute although the cached row keeps its old value", async () => {
    const team = await makeTeam("pro");
    const start = Date.now();
    const { svc, advance } = servicesAt(start);
    const found = await authenticateToken(svc, team.full);
    if (!found) throw new Error("token not found");
    const lastUsed = async () =>
      (await env.DB.prepare("SELECT last_used_at AS t FROM tokens WHERE id = ?").bind(found.token.id).first<{ t: number | null }>())?.t ?? null;
    await touchToken(svc, found.token.id, found.token.lastUsedAt);
    expect(await lastUsed()).toBe(start);
    advance(30_000);
    await touchToken(svc, found.token.id, found.token.lastUsedAt); // the cached (stale) value
    expect(await lastUsed()).toBe(start);
    advance(30_000);
    await touchToken(svc, found.token.id, found.token.lastUsedAt);
    expect(await lastUsed()).toBe(start + 60_000);
  });
});
