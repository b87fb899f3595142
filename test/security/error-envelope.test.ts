// Every error answer, whichever layer produced it, is the one envelope with the response's request id.
import { describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../support/api";

async function envelope(res: Response) {
  const body = await json<Record<string, unknown>>(res);
  expect(Object.keys(body).sort().filter((k) => k !== "errors")).toEqual(["code", "message", "request_id"]);
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
    expect((await call("/api/v1/dkim/generate", { method: "POST", token: team.full, body: { domain: "example.com", selector: "s1", algorithm: "ed25519" } })).headers.get("cache-control")).toBe("no-store");
    expect((await call("/api/v1/me", { token: team.full })).headers.get("cache-control")).toBe("no-store");
    expect((await call("/api/v1/me")).headers.get("cache-control"), "errors too").toBe("no-store");
    expect((await call("/admin/teams", { method: "POST", token: "test-admin-token", body: { name: "n", plan: "starter", owner_email: "o@example.com" } })).headers.get("cache-control")).toBe("no-store");
    expect((await call("/api/v1/openapi.json")).headers.get("cache-control")).toBe("public, max-age=300");
  });
});
