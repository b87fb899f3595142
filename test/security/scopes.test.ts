import { describe, expect, it } from "vitest";
import { readOnlyMayCall } from "../../src/middleware/auth";
import { call, json, makeTeam } from "../support/api";

describe("read-only scope (docs/decisions.md D2)", () => {
  it.each([
    ["GET", "/api/v1/domains", true],
    ["GET", "/api/v1/webhooks/1/deliveries", true],
    ["POST", "/api/v1/dkim/verify", true],
    ["POST", "/api/v1/dkim/generate", true],
    ["POST", "/api/v1/intel/emails", true],
    ["POST", "/api/v1/domains", false],
    ["POST", "/api/v1/domains/1/check", false],
    ["POST", "/api/v1/domains/1/verify", false],
    ["DELETE", "/api/v1/domains/1", false],
    ["PATCH", "/api/v1/webhooks/1", false],
    ["POST", "/api/v1/webhooks/1/rotate-secret", false],
    ["POST", "/api/v1/alerts/1/resolve", false],
    ["POST", "/api/v1/dkim/verify/extra", false],
  ])("%s %s allowed=%s", (method, path, allowed) => {
    expect(readOnlyMayCall(method, path)).toBe(allowed);
  });

  it("answers 403 forbidden with a code when a read-only token writes", async () => {
    const team = await makeTeam();
    const res = await call("/api/v1/domains", { method: "POST", token: team.readOnly, body: { name: "example.com" } });
    expect(res.status).toBe(403);
    const body = await json<{ code: string; message: string }>(res);
    expect(body.code).toBe("forbidden");
    expect(res.headers.get("X-RateLimit-Limit"), "headers on every authenticated response").toBeTruthy();
  });
});
