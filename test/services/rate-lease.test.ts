// Per-isolate leases on the team rate limit and quota (docs/decisions.md D55). Lease holders are built
// here against a real RateLimiter object; two holders on one object stand for two isolates. The
// clock is each holder's injected clock, passed to the object too, so windows move without waiting.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LeaseRequest, RateDecision } from "../../src/durable-objects/rate-limiter";
import { RateLeases } from "../../src/durable-objects/rate-lease";
import { ADMIN_TOKEN, awaitFreshMinute, call, json, makeTeam, unique } from "../support/api";

const FIXED_NOW = Date.UTC(2026, 10, 21, 12, 30, 10); // 50 s before the minute window ends
const STARTER = { perMinute: 60, perMonth: 10_000 };

function holderOn(stubName: string, start = FIXED_NOW) {
  let now = start;
  const stub = env.RATE_LIMITER.getByName(stubName);
  const requests: LeaseRequest[] = [];
  const leases = new RateLeases(() => now);
  const fetchLease = (request: LeaseRequest) => {
    requests.push(request);
    return stub.lease(request, now);
  };
  return {
    stub,
    leases,
    requests,
    hit: (limits = STARTER) => leases.hit(1, limits, fetchLease),
    burst: (n: number, limits = STARTER) => Promise.all(Array.from({ length: n }, () => leases.hit(1, limits, fetchLease))),
    advance: (ms: number) => (now += ms),
    now: () => now,
  };
}

const allowed = (rs: RateDecision[]) => rs.filter((r) => r.allowed);

describe("rate-limit leases in one isolate", () => {
  it("admits exactly the limit out of a parallel burst, with exact Remaining and quota figures", async () => {
    const h = holderOn(unique("lease-burst"));
    const results = await h.burst(100);
    expect(allowed(results)).toHaveLength(60);
    const refused = results.filter((r) => !r.allowed);
    expect(refused.every((r) => r.reason === "rate_limited" && r.retryAfterSeconds === 50 && r.remaining === 0)).toBe(true);
    // Each admitted request saw a different Remaining, 59 down to 0, as with one object call each.
    expect(
      allowed(results)
        .map((r) => r.remaining)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(Math.max(...allowed(results).map((r) => r.quotaUsed))).toBe(60);
    expect(await h.stub.usage(FIXED_NOW), "refusals never count").toBe(60);
    expect(h.requests.length, "far fewer object calls than requests").toBeLessThan(20);
    expect(
      h.requests.every((r) => r.want <= 6),
      "a lease is at most a tenth of the per-minute limit",
    ).toBe(true);
  });

  it("asks the object again only when its window ends once refused", async () => {
    const h = holderOn(unique("lease-refused"));
    await h.burst(61);
    const calls = h.requests.length;
    h.advance(49_000);
    const still = await h.hit();
    expect(still).toMatchObject({ allowed: false, reason: "rate_limited", retryAfterSeconds: 1, resetSeconds: 1 });
    expect(h.requests.length, "the refusal is held for the rest of the window").toBe(calls);
    h.advance(1_000);
    const next = await h.hit();
    expect(next).toMatchObject({ allowed: true, remaining: 59, quotaUsed: 61 });
    expect(h.requests.length).toBe(calls + 1);
  });

  it("gives back the permits a window left unspent when it asks for the next", async () => {
    const h = holderOn(unique("lease-rollover"));
    for (let i = 0; i < 8; i++) expect((await h.hit()).allowed).toBe(true); // grants of 1, 2, 4, 6: 5 left
    expect(h.leases.held(1)).toBe(5);
    expect(await h.stub.usage(FIXED_NOW), "granted permits are counted at once").toBe(13);
    h.advance(60_000);
    expect(h.leases.held(1), "a lease ends with its window").toBe(0);
    const next = await h.hit();
    expect(h.requests.at(-1)?.unused).toEqual([{ windowStart: FIXED_NOW - 10_000, month: "2026-11", count: 5 }]);
    expect(next).toMatchObject({ allowed: true, remaining: 59, quotaUsed: 9 });
    expect((await h.stub.usage(h.now())) - h.leases.held(1), "the month counts only what was admitted").toBe(9);
    expect(h.requests.at(-1)?.want, "the next lease is sized by what the last one used").toBe(1);
  });

  it("does not give back a previous month's permits to the new month", async () => {
    const endOfMonth = Date.UTC(2026, 10, 30, 23, 59, 50);
    const name = unique("lease-month");
    const a = holderOn(name, endOfMonth);
    for (let i = 0; i < 4; i++) await a.hit(); // grants of 1, 2, 4: 3 left in November
    const b = holderOn(name, endOfMonth + 20_000);
    for (let i = 0; i < 3; i++) await b.hit(); // December: grants of 1, 2
    a.advance(20_000);
    const first = await a.hit();
    expect(a.requests.at(-1)?.unused).toEqual([{ windowStart: endOfMonth - 50_000, month: "2026-11", count: 3 }]);
    expect(first).toMatchObject({ allowed: true, quotaUsed: 4 });
    expect(await a.stub.usage(a.now()), "December is not credited with November's permits").toBe(4);
  });

  it("recovers from a failed object call: the next request asks again", async () => {
    const stub = env.RATE_LIMITER.getByName(unique("lease-fail"));
    const leases = new RateLeases(() => FIXED_NOW);
    let fail = true;
    const fetchLease = (request: LeaseRequest) => {
      if (fail) return Promise.reject(new Error("object unreachable"));
      return stub.lease(request, FIXED_NOW);
    };
    const both = await Promise.allSettled([leases.hit(1, STARTER, fetchLease), leases.hit(1, STARTER, fetchLease)]);
    expect(both.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await leases.hit(1, STARTER, fetchLease)).toMatchObject({ allowed: true, remaining: 59, quotaUsed: 1 });
  });

  it("drops the lease on a plan change, giving back what it held, and uses the new limits", async () => {
    const h = holderOn(unique("lease-plan"));
    for (let i = 0; i < 8; i++) await h.hit();
    expect(h.leases.held(1)).toBe(5);
    h.leases.drop(1);
    expect(h.leases.held(1)).toBe(0);
    const pro = { perMinute: 300, perMonth: 100_000 };
    const next = await h.hit(pro);
    expect(h.requests.at(-1)?.unused).toEqual([{ windowStart: FIXED_NOW - 10_000, month: "2026-11", count: 5 }]);
    expect(next).toMatchObject({ allowed: true, limit: 300, remaining: 291, quotaUsed: 9 });
  });

  it("requests under old and new limits at once all complete, and the month counts only what was admitted", async () => {
    const h = holderOn(unique("lease-mixed"));
    const pro = { perMinute: 300, perMonth: 100_000 };
    // Tokens of one team cached before and after a plan change (another isolate's change, D51) interleave.
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => h.hit(i % 2 === 0 ? STARTER : pro)));
    expect(results.every((r) => r.allowed)).toBe(true);
    h.leases.drop(1);
    expect((await h.hit(pro)).allowed).toBe(true);
    expect(await h.stub.usage(FIXED_NOW), "every permit not spent went back").toBe(13 + h.leases.held(1));
  });

  it("a request under other limits replaces the lease the same way", async () => {
    const h = holderOn(unique("lease-limits"));
    for (let i = 0; i < 8; i++) await h.hit();
    const next = await h.hit({ perMinute: 1_200, perMonth: 1_000_000 });
    expect(next).toMatchObject({ allowed: true, limit: 1_200, remaining: 1_191, quotaUsed: 9 });
  });
});

describe("rate-limit leases across isolates", () => {
  it("two isolates together never admit more than the limit", async () => {
    const name = unique("lease-two");
    const a = holderOn(name);
    const b = holderOn(name);
    const [ra, rb] = await Promise.all([a.burst(70), b.burst(70)]);
    expect(allowed(ra).length + allowed(rb).length).toBe(60);
    expect(await a.stub.usage(FIXED_NOW)).toBe(60);
  });

  it("permits one isolate holds are the only shortfall another sees, at most one lease", async () => {
    const name = unique("lease-held");
    const a = holderOn(name);
    const b = holderOn(name);
    for (let i = 0; i < 8; i++) await a.hit(); // a holds 5 unspent permits
    const rb = await b.burst(60);
    expect(allowed(rb)).toHaveLength(60 - 13);
    const rest = await a.burst(10);
    expect(allowed(rest), "a still spends what it holds, and nothing more").toHaveLength(5);
    expect(await a.stub.usage(FIXED_NOW)).toBe(60);
  });
});

describe("rate-limit leases over HTTP", () => {
  it("a plan change mid-lease applies to the next request and gives back the unspent permits", async () => {
    const team = await makeTeam("starter");
    await awaitFreshMinute();
    let last: Response | undefined;
    for (let i = 0; i < 8; i++) last = await call("/api/v1/me", { token: team.full });
    expect(last?.headers.get("X-Quota-Used")).toBe("8");
    expect(last?.headers.get("X-RateLimit-Remaining")).toBe("52");
    expect((await call(`/admin/teams/${team.id}`, { method: "PATCH", token: ADMIN_TOKEN, body: { plan: "pro" } })).status).toBe(200);
    const after = await call("/api/v1/me", { token: team.full });
    expect(after.headers.get("X-RateLimit-Limit")).toBe("300");
    expect(after.headers.get("X-RateLimit-Remaining")).toBe("291");
    expect(after.headers.get("X-Quota-Used"), "exact: the old lease's permits were given back").toBe("9");
  });

  it("a token revoked mid-lease is refused at once while the team's other token spends the same lease", async () => {
    const team = await makeTeam("starter");
    await awaitFreshMinute();
    for (let i = 0; i < 4; i++) expect((await call("/api/v1/me", { token: team.full })).status).toBe(200);
    expect((await call(`/admin/tokens/${team.fullTokenId}`, { method: "DELETE", token: ADMIN_TOKEN })).status).toBe(204);
    const revoked = await call("/api/v1/me", { token: team.full });
    expect(revoked.status).toBe(401);
    expect((await json<{ code: string }>(revoked)).code).toBe("unauthenticated");
    const other = await call("/api/v1/me", { token: team.readOnly });
    expect(other.status).toBe(200);
    expect(other.headers.get("X-Quota-Used")).toBe("5");
    expect(other.headers.get("X-RateLimit-Remaining")).toBe("55");
  });
});
