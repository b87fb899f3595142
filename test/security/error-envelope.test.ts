// Every error answer, whichever layer produced it, is the one envelope with the response's request id.
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, json, makeTeam } from "../support/api";

async function envelope(res: Response) {
  const body = await json<Record<string, unknown>>(res);
  expect(
    Object.keys(body)
      .sort()
      .filter((k) => k !== "errors"),
  ).toEqual(["code", "message", "request_id"]);
  expect(body.request_id, "request_id is the X-Request-Id header").toBe(res.headers.get("x-request-id"));
  return body;
}

describe("error envelope", () => {
  it("unknown route, no token, bad JSON, schema error, unknown id and admin gate all answer the same shape", async () => {
    const team = await makeTeam();
    const cases: Array<[Promise<Response>, number, string]> = [
      [call("/api/v1/nope", { token: team.full }), 404, "not_found"],
      [call("/nowhere"), 404, "not_found"],
      [call("/api/v1/domains"), 401, "unauthenticated"],
      [call("/api/v1/domains", { method: "POST", token: team.full, rawBody: "{", headers: { "content-type": "application/json" } }), 400, "bad_request"],
      [call("/api/v1/domains", { method: "POST", token: team.full, body: { name: 12 } }), 422, "validation_failed"],
      [call("/api/v1/domains/999999999", { token: team.full }), 404, "not_found"],
      [call("/api/v1/domains", { method: "POST", token: team.readOnly, body: { name: "x.example" } }), 403, "forbidden"],
      [call("/admin/teams", { method: "POST", token: "wrong", body: {} }), 401, "unauthenticated"],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      expect(res.status).toBe(status);
      expect((await envelope(res)).code).toBe(code);
    }
  });

  it("a caller's sane X-Request-Id is echoed in the header and the envelope", async () => {
    const res = await call("/api/v1/nope", { headers: { "x-request-id": "client-req-12345" } });
    expect((await envelope(res)).request_id).toBe("client-req-12345");
  });
});

describe("caching", () => {
  it("answers that can carry tokens or secrets are no-store; the public document may be cached", async () => {
    const team = await makeTeam();
    const hook = await call("/api/v1/webhooks", { method: "POST", token: team.full, body: { url: "https://hooks.example.com/x", events: ["*"] } });
    expect(hook.headers.get("cache-control")).toBe("no-store");
    expect(
      (
        await call("/api/v1/dkim/generate", { method: "POST", token: team.full, body: { domain: "example.com", selector: "s1", algorithm: "ed25519" } })
      ).headers.get("cache-control"),
    ).toBe("no-store");
    expect((await call("/api/v1/me", { token: team.full })).headers.get("cache-control")).toBe("no-store");
    expect((await call("/api/v1/me")).headers.get("cache-control"), "errors too").toBe("no-store");
    expect(
      (await call("/admin/teams", { method: "POST", token: ADMIN_TOKEN, body: { name: "n", plan: "starter", owner_email: "o@example.com" } })).headers.get(
        "cache-control",
      ),
    ).toBe("no-store");
    expect((await call("/api/v1/openapi.json")).headers.get("cache-control")).toBe("public, max-age=300");
  });
});

describe("failed authentication is throttled per client", () => {
  it("past 60 failed tokens in a minute a client gets 429 with Retry-After (before any lookup); other clients are unaffected", async () => {
    const team = await makeTeam();
    const bogus = `eam_${"A".repeat(40)}`;
    const from = (ip: string, token: string) => call("/api/v1/me", { token, headers: { "cf-connecting-ip": ip } });
    for (let i = 0; i < 60; i++) expect((await from("198.51.100.77", bogus)).status, `failure ${i + 1}`).toBe(401);
    const blocked = await from("198.51.100.77", bogus);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await from("198.51.100.77", team.full)).status, "even a good token from a blocked client waits").toBe(429);
    expect((await from("198.51.100.78", team.full)).status, "another client is unaffected").toBe(200);
  });

  it("past 20 failed admin tokens in a minute a client gets 429", async () => {
    const from = (token: string) => call("/admin/teams", { method: "POST", token, body: {}, headers: { "cf-connecting-ip": "203.0.113.66" } });
    for (let i = 0; i < 20; i++) expect((await from("wrong")).status).toBe(401);
    expect((await from("wrong")).status).toBe(429);
    expect((await from(ADMIN_TOKEN)).status, "blocked for the rest of the minute").toBe(429);
  });
});
