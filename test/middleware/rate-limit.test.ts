import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { call, json, makeTeam, unique } from "../support/api";

const FIXED_NOW = Date.UTC(2026, 10, 21, 12, 30, 10);

describe("RateLimiter Durable Object", () => {
  it("admits exactly the limit out of a parallel burst", async () => {
    const stub = env.RATE_LIMITER.getByName(unique("burst"));
    const results = await Promise.all(Array.from({ length: 100 }, () => stub.hit({ perMinute: 60, perMonth: 10_000 }, FIXED_NOW)));
    expect(results.filter((r) => r.allowed).length).toBe(60);
    const denied = results.filter((r) => !r.allowed);
    expect(denied.every((r) => r.reason === "rate_limited" && r.retryAfterSeconds === 50)).toBe(true);
    expect(await stub.usage(FIXED_NOW), "denied requests do not count against the quota").toBe(60);
  });

  it("opens a new window each minute", async () => {
    const stub = env.RATE_LIMITER.getByName(unique("window"));
    for (let i = 0; i < 3; i++) await stub.hit({ perMinute: 3, perMonth: 100 }, FIXED_NOW);
    expect((await stub.hit({ perMinute: 3, perMonth: 100 }, FIXED_NOW)).allowed).toBe(false);
    const next = await stub.hit({ perMinute: 3, perMonth: 100 }, FIXED_NOW + 60_000);
    expect(next).toMatchObject({ allowed: true, remaining: 2, quotaUsed: 4 });
  });

  it("refuses past the monthly quota until the month changes", async () => {
    const stub = env.RATE_LIMITER.getByName(unique("quota"));
    const limits = { perMinute: 100, perMonth: 3 };
    for (let i = 0; i < 3; i++) expect((await stub.hit(limits, FIXED_NOW)).allowed).toBe(true);
    const over = await stub.hit(limits, FIXED_NOW);
    expect(over).toMatchObject({ allowed: false, reason: "quota_exceeded", quotaUsed: 3 });
    expect(over.retryAfterSeconds).toBe((Date.UTC(2026, 11, 1) - FIXED_NOW) / 1000);
    expect((await stub.hit(limits, Date.UTC(2026, 11, 1, 0, 0, 5))).allowed, "a new month starts at zero").toBe(true);
  });
});

describe("rate limits over HTTP", () => {
  // The clock is injected, never waited for: the Worker, its services' system clock and the RateLimiter
  // object all read the one \`Date\` of the pool's isolate (the object runs in the same isolate as the
  // tests), so faking Date alone (timers stay real) puts every request at FIXED_NOW, 50 s before the
  // minute window ends, and moving it opens the next window.
  // test/setup.ts restores the real clock after each test.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: FIXED_NOW });
  });

  it("answers the limit+1-th request in a window with 429, Retry-After and {message, code}; the next window admits again", async () => {
    const team = await makeTeam("starter");
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await call("/api/v1/me", { token: team.full })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const res = await call("/api/v1/me", { token: team.full });
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After"), "seconds to the end of the minute window").toBe("50");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(res.headers.get("X-RateLimit-Reset")).toBe("50");
    expect(await json(res)).toMatchObject({ code: "rate_limited", message: expect.any(String) });
    vi.setSystemTime(FIXED_NOW + 49_000);
    expect((await call("/api/v1/me", { token: team.full })).status, "still the same window").toBe(429);
    vi.setSystemTime(FIXED_NOW + 50_000);
    const next = await call("/api/v1/me", { token: team.full });
    expect(next.status, "a new window").toBe(200);
    expect(next.headers.get("X-RateLimit-Remaining")).toBe("59");
    expect(next.headers.get("X-Quota-Used"), "refused requests never counted").toBe("61");
  });

  it("never admits more than the limit from a parallel burst", async () => {
    const team = await makeTeam("starter");
    const statuses = await Promise.all(Array.from({ length: 90 }, () => call("/api/v1/me", { token: team.full }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBe(60);
    expect(statuses.filter((s) => s === 429).length).toBe(30);
  });

  it("answers 429 quota_exceeded once the monthly quota is spent", async () => {
    const team = await makeTeam("starter");
    const stub = env.RATE_LIMITER.getByName(`team:${team.id}`);
    await runInDurableObject(stub, (_instance, state) => {
      const now = new Date();
      const key = `quota:${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
      state.storage.kv.put(key, 9_999);
    });
    const last = await call("/api/v1/me", { token: team.full });
    expect(last.status).toBe(200);
    expect(last.headers.get("X-Quota-Used")).toBe("10000");
    const over = await call("/api/v1/me", { token: team.full });
    expect(over.status).toBe(429);
    expect((await json<{ code: string }>(over)).code).toBe("quota_exceeded");
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});
