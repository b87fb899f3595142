// The dashboard's tools are metered like the API (docs/decisions.md D147), through the Worker's real
// fetch export: every page action that does work counts one call against the team's per-minute limit
// and monthly quota, in the same RateLimiter object as REST, and a refusal is a 429 page that says when
// to try again, with Retry-After. Pages that only show the team's data count nothing.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { call, json } from "../support/api";
import { type Browser, signedInOwner } from "../support/browser";

/** 50 seconds before its minute window ends, as in test/middleware/rate-limit.test.ts. */
const FIXED_NOW = Date.UTC(2026, 10, 21, 12, 30, 10);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"], now: FIXED_NOW });
});

/** A full token of the browser's team, made on the tokens page (showing pages is not metered). */
async function tokenOf(b: Browser): Promise<string> {
  const html = await (await b.post("/tokens", { name: "probe", scope: "full" }, "/tokens")).text();
  const token = /<code id="token-value">(eam_[0-9A-Za-z]{40})<\/code>/.exec(html)?.[1];
  if (!token) throw new Error("no token on the tokens page");
  return token;
}

/** What REST says is left of this minute's allowance (the probe itself counts one). */
async function remaining(token: string): Promise<number> {
  const res = await call("/api/v1/me", { token });
  expect(res.status).toBe(200);
  return Number(res.headers.get("X-RateLimit-Remaining"));
}

/** A form post with the browser's CSRF token, fetched once (b.post fetches a page for it each time). */
const poster = async (b: Browser) => {
  const _csrf = await b.csrf("/dashboard");
  return (path: string, form: Record<string, string> = {}) => b.fetch(path, { method: "POST", form: { _csrf, ...form } });
};

const generate = { domain: "example.com", selector: "s1", algorithm: "ed25519" };

/** The upload form's body with a (not a report) file: the page meters before it parses the report. */
async function uploadForm(b: Browser, domainId: number): Promise<Response> {
  const form = new FormData();
  form.set("_csrf", await b.csrf("/dashboard"));
  form.set("report", new File(["<not-a-report/>"], "report.xml", { type: "text/xml" }));
  const req = new Request("https://x.test", { method: "POST", body: form });
  return b.fetch(`/domains/${domainId}/dmarc/upload`, {
    method: "POST",
    body: new Uint8Array(await req.arrayBuffer()),
    headers: { "content-type": req.headers.get("content-type") ?? "" },
  });
}

describe("dashboard tools share the team's rate limit and quota", () => {
  it("refuses a starter team's member the 61st DKIM key within a minute with a 429 page, Retry-After and when to retry", async () => {
    const { b } = await signedInOwner("meter");
    const post = await poster(b);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await post("/dkim/generate", generate)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await post("/dkim/generate", generate);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After"), "seconds to the end of the minute window").toBe("50");
    expect(refused.headers.get("content-type")).toContain("text/html");
    const html = await refused.text();
    expect(html).toContain("Slow down");
    expect(html).toContain("Rate limit exceeded");
    expect(html).toContain("Try again in 50 seconds.");
    expect(html).not.toContain("BEGIN PRIVATE KEY");
    vi.setSystemTime(FIXED_NOW + 50_000);
    expect((await post("/dkim/generate", generate)).status, "a new window admits again").toBe(200);
  });

  it("counts REST calls and page actions against one budget: the 61st call of a minute is refused on either face", async () => {
    const { b } = await signedInOwner("meter");
    const token = await tokenOf(b);
    const post = await poster(b);
    for (let i = 0; i < 30; i++) expect((await call("/api/v1/me", { token })).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await post("/dkim/generate", generate)).status).toBe(200);
    const page = await post("/dkim/generate", generate);
    expect(page.status, "the page refuses what REST spent").toBe(429);
    const rest = await call("/api/v1/me", { token });
    expect(rest.status, "REST refuses what the pages spent").toBe(429);
    expect(await json(rest)).toMatchObject({ code: "rate_limited" });
    expect(rest.headers.get("Retry-After")).toBe("50");
  });

  it("counts every page action that does work, once, even when it then refuses the input; showing pages counts nothing", async () => {
    const { b } = await signedInOwner("meter");
    const token = await tokenOf(b);
    const post = await poster(b);
    let left = await remaining(token);
    const actions: Array<[string, () => Promise<Response>]> = [
      ["DKIM lookup", () => b.fetch("/dkim/lookup?domain=not%20a%20domain")],
      ["DKIM verify", () => post("/dkim/verify", { message: "not a message" })],
      ["DKIM generate", () => post("/dkim/generate", generate)],
      ["domain intel", () => b.fetch("/intel?domain=not%20a%20domain")],
      ["address check", () => post("/intel/emails", { emails: "not-an-address" })],
      ["check now", () => post("/domains/999999999/check")],
      ["verify a domain", () => post("/domains/999999999/verify")],
      ["report upload", () => uploadForm(b, 999999999)],
      ["add a webhook endpoint", () => post("/webhooks", { url: "not a url" })],
      ["send a test event", () => post("/webhooks/999999999/test")],
      ["redeliver", () => post("/webhooks/999999999/deliveries/1/redeliver")],
    ];
    for (const [name, act] of actions) {
      const res = await act();
      expect(res.status, name).toBeLessThan(500);
      const now = await remaining(token);
      expect(left - now, `${name} counts one call (plus the probe)`).toBe(2);
      left = now;
    }
    for (const path of ["/dashboard", "/dkim", "/intel", "/domains", "/webhooks", "/tokens"]) {
      expect((await b.fetch(path)).status, path).toBe(200);
    }
    expect(left - (await remaining(token)), "showing pages is not metered").toBe(1);
  });

  it("counts an intel page against the monthly quota, and a spent quota refuses the page until the month ends", async () => {
    const { b, teamId } = await signedInOwner("meter");
    const stub = env.RATE_LIMITER.getByName(`team:${teamId}`);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.kv.put("quota:2026-11", 9_999);
    });
    const last = await b.fetch("/intel?domain=not%20a%20domain");
    expect(last.status, "the quota's last call").toBe(422);
    expect(await stub.usage(FIXED_NOW)).toBe(10_000);
    const over = await b.fetch("/intel?domain=not%20a%20domain");
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("Retry-After"))).toBe((Date.UTC(2026, 11, 1) - FIXED_NOW) / 1000);
    const html = await over.text();
    expect(html).toContain("Monthly request quota exhausted");
    expect(html).toContain("Try again after 2026-12-01 00:00 UTC.");
    expect((await b.fetch("/intel")).status, "the empty form does no work").toBe(200);
  });

  it("answers a signed-out visitor with the sign-in redirect, counting nothing", async () => {
    const { b, teamId } = await signedInOwner("meter");
    const stub = env.RATE_LIMITER.getByName(`team:${teamId}`);
    const before = await stub.usage(FIXED_NOW);
    await b.post("/sign-out", {}, "/dashboard");
    expect((await b.fetch("/intel?domain=example.com")).status).toBe(303);
    expect(await stub.usage(FIXED_NOW)).toBe(before);
  });
});
