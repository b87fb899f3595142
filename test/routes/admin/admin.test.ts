import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { ADMIN_TOKEN, call, json, makeTeam, unique } from "../../support/api";

describe("admin API", () => {
  it("creates a team with a full and a read-only token, shown once", async () => {
    const res = await call("/admin/teams", {
      method: "POST",
      token: ADMIN_TOKEN,
      body: { name: "Acme", plan: "starter", owner_email: "owner@acme.example" },
    });
    expect(res.status).toBe(201);
    const { data } = await json<{ data: any }>(res);
    expect(data.team).toMatchObject({ name: "Acme", plan: "starter", owner_email: "owner@acme.example" });
    expect(data.tokens.full.token).toMatch(/^eam_[0-9A-Za-z]{40}$/);
    expect(data.tokens.read_only.scope).toBe("read_only");
    const stored = await env.DB.prepare("select token_hash, prefix from tokens where id = ?")
      .bind(data.tokens.full.id)
      .first<{ token_hash: string; prefix: string }>();
    expect(stored?.token_hash, "only the hash is stored").toMatch(/^[0-9a-f]{64}$/);
    expect(stored?.token_hash).not.toContain(data.tokens.full.token);
    expect(stored?.prefix).toBe(data.tokens.full.token.slice(0, 12));
  });

  it("issues extra tokens and changes the plan", async () => {
    const team = await makeTeam("starter");
    const issued = await call(`/admin/teams/${team.id}/tokens`, { method: "POST", token: ADMIN_TOKEN, body: { scope: "read_only", name: "CI" } });
    expect(issued.status).toBe(201);
    const token = (await json<{ data: { token: string } }>(issued)).data.token;
    expect((await call("/api/v1/me", { token })).status).toBe(200);
    const patched = await call(`/admin/teams/${team.id}`, { method: "PATCH", token: ADMIN_TOKEN, body: { plan: "enterprise" } });
    expect(patched.status).toBe(200);
    const me = await json<{ data: { plan: string } }>(await call("/api/v1/me", { token }));
    expect(me.data.plan).toBe("enterprise");
  });

  it("validates input: 400 malformed JSON, 415 wrong type, 422 per field, 404 unknown team", async () => {
    const bad = await call("/admin/teams", { method: "POST", token: ADMIN_TOKEN, rawBody: "{nope", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect((await json<{ code: string }>(bad)).code).toBe("bad_request");
    const arr = await call("/admin/teams", { method: "POST", token: ADMIN_TOKEN, body: [1, 2] });
    expect(arr.status).toBe(400);
    const form = await call("/admin/teams", {
      method: "POST",
      token: ADMIN_TOKEN,
      rawBody: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    const invalid = await call("/admin/teams", { method: "POST", token: ADMIN_TOKEN, body: { name: "", plan: "gold", owner_email: "nope" } });
    expect(invalid.status).toBe(422);
    const body = await json<{ code: string; errors: Record<string, string[]> }>(invalid);
    expect(body.code).toBe("validation_failed");
    expect(Object.keys(body.errors).sort()).toEqual(["name", "owner_email", "plan"]);
    const missing = await call(`/admin/teams/999999/tokens`, { method: "POST", token: ADMIN_TOKEN, body: { scope: "full", name: "x" } });
    expect(missing.status).toBe(404);
    expect((await call(`/admin/tokens/999999`, { method: "DELETE", token: ADMIN_TOKEN })).status).toBe(404);
  });

  it("requires the admin token", async () => {
    const team = await makeTeam();
    expect((await call("/admin/teams", { method: "POST", body: { name: unique("t"), plan: "pro", owner_email: "a@b.example" } })).status).toBe(401);
    expect((await call("/admin/teams", { method: "POST", token: team.full, body: { name: "t", plan: "pro", owner_email: "a@b.example" } })).status).toBe(401);
  });

  it("is a 404 on every path when ADMIN_TOKEN is not set", async () => {
    const app = createApp();
    for (const [method, path] of [
      ["POST", "/admin/teams"],
      ["DELETE", "/admin/tokens/1"],
      ["GET", "/admin/anything"],
    ] as const) {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`https://api.test${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: method === "POST" ? "{}" : undefined,
        }),
        { ...env, ADMIN_TOKEN: undefined },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});

describe("a short ADMIN_TOKEN", () => {
  it("turns the admin API off (503 saying why) at 31 characters, and on at 32", async () => {
    const app = createApp();
    const post = async (token: string) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request("https://api.test/admin/teams", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: "{}",
        }),
        { ...env, ADMIN_TOKEN: token },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    const short = await post("x".repeat(31));
    expect(short.status).toBe(503);
    expect((await json<{ message: string }>(short)).message).toContain("at least 32 characters");
    expect((await post("y".repeat(32))).status, "32 characters: the gate lets it through to validation").toBe(422);
  });
});

describe("the operator document", () => {
  it("is served at /admin/openapi.json behind the admin token, and the team document has no /admin path", async () => {
    expect((await call("/admin/openapi.json")).status).toBe(401);
    expect((await call("/admin/openapi.json", { token: `${ADMIN_TOKEN}x` })).status).toBe(401);
    const res = await call("/admin/openapi.json", { token: ADMIN_TOKEN });
    expect(res.status).toBe(200);
    const operator = await json<{ paths: Record<string, unknown>; servers: Array<{ url: string }> }>(res);
    expect(Object.keys(operator.paths)).toContain("/admin/teams");
    const team = await json<{ paths: Record<string, unknown>; servers: Array<{ url: string }> }>(
      await call("/api/v1/openapi.json", { headers: { host: "evil.example" } }),
    );
    expect(Object.keys(team.paths).some((p) => p.startsWith("/admin"))).toBe(false);
    expect(team.servers, "the Host header never becomes the server").toEqual([{ url: "/" }]);
  });
});
