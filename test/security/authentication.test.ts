import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, json, makeTeam } from "../support/api";

async function expect401(res: Response) {
  expect(res.status, "status").toBe(401);
  const body = await json<{ message: string; code: string }>(res);
  expect(body.code).toBe("unauthenticated");
  expect(typeof body.message).toBe("string");
  expect(res.headers.get("X-Request-Id"), "request id on errors too").toBeTruthy();
}

describe("bearer authentication", () => {
  it("rejects a missing token", async () => expect401(await call("/api/v1/me")));

  it("rejects a malformed Authorization header", async () => {
    await expect401(await call("/api/v1/me", { headers: { authorization: "Token abc" } }));
    await expect401(await call("/api/v1/me", { headers: { authorization: "Bearer" } }));
    await expect401(await call("/api/v1/me", { headers: { authorization: "Bearer not-a-token" } }));
  });

  it("rejects a well-formed but unknown token", async () => {
    await expect401(await call("/api/v1/me", { token: `eam_${"A".repeat(40)}` }));
  });

  it("rejects a revoked token immediately", async () => {
    const team = await makeTeam();
    expect((await call("/api/v1/me", { token: team.full })).status).toBe(200);
    const revoke = await call(`/admin/tokens/${team.fullTokenId}`, { method: "DELETE", token: ADMIN_TOKEN });
    expect(revoke.status).toBe(204);
    await expect401(await call("/api/v1/me", { token: team.full }));
    expect((await call("/api/v1/me", { token: team.readOnly })).status, "the other token still works").toBe(200);
  });

  it("accepts the scheme name case-insensitively", async () => {
    const team = await makeTeam();
    expect((await call("/api/v1/me", { headers: { authorization: `bearer ${team.full}` } })).status).toBe(200);
  });

  it("authenticates before revealing whether a route exists", async () => {
    await expect401(await call("/api/v1/no-such-route"));
    const team = await makeTeam();
    const res = await call("/api/v1/no-such-route", { token: team.full });
    expect(res.status).toBe(404);
    expect((await json<{ code: string }>(res)).code).toBe("not_found");
  });
});
