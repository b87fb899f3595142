import { describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../../support/api";

describe("GET /api/v1/me", () => {
  it("returns the team, plan, limits, token scope and usage", async () => {
    const team = await makeTeam("pro");
    const res = await call("/api/v1/me", { token: team.full });
    expect(res.status).toBe(200);
    const { data } = await json<{ data: Record<string, any> }>(res);
    expect(data.team.id).toBe(team.id);
    expect(data.plan).toBe("pro");
    expect(data.limits).toEqual({
      requests_per_minute: 300,
      requests_per_month: 100_000,
      webhook_endpoints: 5,
      notification_channels: 10,
      domains: 100,
      check_interval_hours: 6,
    });
    expect(data.token.scope).toBe("full");
    expect(data.token.prefix).toBe(team.full.slice(0, 12));
    expect(Object.keys(data.token).sort(), "no internal fields").toEqual(["id", "name", "prefix", "scope"]);
    expect(data.usage.requests_this_month).toBe(1);
  });

  it("carries the quota and rate-limit headers, and counts each request", async () => {
    const team = await makeTeam("starter");
    await call("/api/v1/me", { token: team.full });
    const res = await call("/api/v1/me", { token: team.readOnly });
    expect(res.headers.get("X-Quota-Limit")).toBe("10000");
    expect(res.headers.get("X-Quota-Used")).toBe("2");
    expect(res.headers.get("X-RateLimit-Limit")).toBe("60");
    expect(Number(res.headers.get("X-RateLimit-Remaining"))).toBeLessThanOrEqual(58);
    const reset = Number(res.headers.get("X-RateLimit-Reset"));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it("lets a read-only token read its account", async () => {
    const team = await makeTeam();
    const res = await call("/api/v1/me", { token: team.readOnly });
    expect(res.status).toBe(200);
    expect((await json<{ data: { token: { scope: string } } }>(res)).data.token.scope).toBe("read_only");
  });
});
