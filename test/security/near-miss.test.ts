// Every secret comparison refuses near misses exactly like a wrong secret: the first, a middle or the
// last character changed, one character short, one character long. A comparison that ignored any
// position or the length would let one of these through.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { hmacSha256Hex } from "../../src/lib/crypto";
import { ADMIN_TOKEN, call, makeTeam } from "../support/api";

/** Variants of a secret that differ from it in one way each. */
function nearMisses(secret: string, alphabet = "0123456789abcdefABCDEF"): Array<[string, string]> {
  const swap = (i: number) => {
    const c = secret[i] ?? "a";
    const other = [...alphabet].find((x) => x !== c) ?? "x";
    return `${secret.slice(0, i)}${other}${secret.slice(i + 1)}`;
  };
  const mid = Math.floor(secret.length / 2);
  return [
    ["first character", swap(0)],
    ["middle character", swap(mid)],
    ["last character", swap(secret.length - 1)],
    ["one shorter", secret.slice(0, -1)],
    ["one longer", `${secret}${alphabet[0]}`],
  ];
}

// Each case comes from its own client address: the per-client failure throttle is not under test here.
let client = 0;
const fromNewClient = () => ({ "cf-connecting-ip": `198.18.0.${++client}` });

describe("near misses are refused", () => {
  it("team tokens", async () => {
    const team = await makeTeam();
    expect((await call("/api/v1/me", { token: team.full, headers: fromNewClient() })).status).toBe(200);
    for (const [what, token] of nearMisses(team.full, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")) {
      expect((await call("/api/v1/me", { token, headers: fromNewClient() })).status, what).toBe(401);
    }
  });

  it("the admin token", async () => {
    expect(
      (await call("/admin/teams", { method: "POST", token: ADMIN_TOKEN, body: {}, headers: fromNewClient() })).status,
      "the right token passes the gate",
    ).toBe(422);
    for (const [what, token] of nearMisses(ADMIN_TOKEN)) {
      expect((await call("/admin/teams", { method: "POST", token, body: {}, headers: fromNewClient() })).status, what).toBe(401);
    }
  });

  it("the report ingestion signature", async () => {
    const body = new TextEncoder().encode("<feedback/>");
    const good = await hmacSha256Hex("test-ingest-secret", body);
    const post = (hex: string) =>
      call("/api/webhooks/dmarc", { method: "POST", rawBody: body, headers: { "content-type": "application/xml", "x-signature": `sha256=${hex}` } });
    expect((await post(good)).status, "the right signature passes (and the body is then refused as no report)").toBe(422);
    for (const [what, hex] of nearMisses(good, "0123456789abcdef")) expect((await post(hex)).status, what).toBe(401);
  });
});

describe("the generic 500", () => {
  it("answers exactly the documented envelope with the request id, no exception text; the log has it", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const team = await makeTeam();
    // A D1 binding that fails on every statement: an unexpected exception deep in a route.
    const broken = new Proxy(env.DB, {
      get: (target, prop) =>
        prop === "prepare"
          ? () => {
              throw new Error("SECRET-INTERNAL-DETAIL d1 exploded");
            }
          : Reflect.get(target, prop),
    });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("https://api.test/api/v1/domains", { headers: { authorization: `Bearer ${team.full}`, "x-request-id": "req-500-probe-1" } }),
      { ...env, DB: broken },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ message: "Internal error.", code: "internal_error", request_id: "req-500-probe-1" });
    expect(text).not.toContain("SECRET-INTERNAL-DETAIL");
    const logged = errors.mock.calls.map((c) => String(c[0])).join("\n");
    expect(logged).toContain("SECRET-INTERNAL-DETAIL");
    expect(logged).toContain("req-500-probe-1");
    errors.mockRestore();
  });
});
