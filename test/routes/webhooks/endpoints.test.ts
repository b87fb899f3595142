import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { teamContext } from "../../support/context";
import { call, json, makeTeam } from "../../support/api";
import { ApiError } from "../../../src/lib/errors";
import { EVENT_TYPES } from "../../../src/services/events/emit";
import { createEndpoint } from "../../../src/services/webhooks/create-endpoint";
import { updateEndpoint } from "../../../src/services/webhooks/update-endpoint";
import { createWebhook, insertDomain, installReceiver, testServices } from "../../support/webhooks";

type Body = { data: Record<string, any>; meta?: Record<string, number>; code?: string; errors?: Record<string, string[]> };
let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver({ "internal.example.com": { A: ["10.0.0.1"] }, "sneaky.example.com": { A: ["93.184.216.34"], AAAA: ["::ffff:169.254.169.254"] } });
});
afterEach(() => r.stub.restore());

describe("GET /webhook-events", () => {
  it("lists every event type with a description", async () => {
    const team = await makeTeam();
    const res = await call("/api/v1/webhook-events", { token: team.readOnly });
    expect(res.status).toBe(200);
    const { data } = await json<{ data: Array<{ type: string; description: string }> }>(res);
    expect(data.map((e) => e.type)).toEqual(expect.arrayContaining(["domain.created", "alert.resolved", "webhook.test", "dkim.key.stale"]));
    // Every type the emitter can send is in the catalogue, once.
    expect([...data.map((e) => e.type)].sort()).toEqual([...EVENT_TYPES].sort());
    for (const e of data) expect(e.description.length).toBeGreaterThan(5);
  });
});

describe("POST /webhooks", () => {
  it("creates an endpoint, returns the whsec_ secret once, and lists it with meta.limit", async () => {
    const team = await makeTeam("pro");
    const domain = await insertDomain(team.id);
    const res = await call("/api/v1/webhooks", {
      method: "POST",
      token: team.full,
      body: { url: "https://hooks.example.com/in", events: ["domain.verified", "alert.created", "alert.created"], description: "ops", domain_ids: [domain.id] },
    });
    expect(res.status).toBe(201);
    const { data } = await json<Body>(res);
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(data.secret.slice(6))).toHaveLength(32);
    expect(data).toMatchObject({
      url: "https://hooks.example.com/in",
      events: ["domain.verified", "alert.created"],
      description: "ops",
      domain_ids: [domain.id],
      enabled: true,
      failure_count: 0,
      disabled_at: null,
    });

    const got = await json<Body>(await call(`/api/v1/webhooks/${data.id}`, { token: team.readOnly }));
    expect(got.data.secret, "the secret is shown only once").toBeUndefined();
    const list = await json<Body>(await call("/api/v1/webhooks", { token: team.readOnly }));
    expect(list.data.map((w: { id: number }) => w.id)).toEqual([data.id]);
    expect(list.meta).toEqual({ current_page: 1, per_page: 25, total: 1, last_page: 1, limit: 5 });
    expect(JSON.stringify(list)).not.toContain(data.secret.slice(6));
  });

  it("answers 409 once the plan's allowance is reached", async () => {
    const team = await makeTeam("starter");
    await createWebhook(team.full, {});
    const res = await call("/api/v1/webhooks", { method: "POST", token: team.full, body: { url: "https://hooks.example.com/2", events: ["*"] } });
    expect(res.status).toBe(409);
    expect((await json<Body>(res)).code).toBe("conflict");
    const list = await json<Body>(await call("/api/v1/webhooks", { token: team.full }));
    expect(list.meta?.limit).toBe(1);
    expect(list.meta?.total).toBe(1);
  });

  it("validates events and domain_ids (422)", async () => {
    const team = await makeTeam();
    const other = await makeTeam();
    const foreign = await insertDomain(other.id);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: "https://hooks.example.com/x", events: [] }, "events"],
      [{ url: "https://hooks.example.com/x", events: ["domain.exploded"] }, "events"],
      [{ url: "https://hooks.example.com/x" }, "events"],
      [{ url: "https://hooks.example.com/x", events: ["*"], domain_ids: [foreign.id] }, "domain_ids"],
      [{ url: "https://hooks.example.com/x", events: ["*"], domain_ids: [] }, "domain_ids"],
      [{ events: ["*"] }, "url"],
      [{ url: "not a url", events: ["*"] }, "url"],
    ];
    for (const [body, field] of cases) {
      const res = await call("/api/v1/webhooks", { method: "POST", token: team.full, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys((await json<Body>(res)).errors ?? {}), JSON.stringify(body)).toContain(field);
    }
    expect((await call("/api/v1/webhooks", { method: "POST", token: team.full, rawBody: "{", headers: { "content-type": "application/json" } })).status).toBe(
      400,
    );
    expect((await call("/api/v1/webhooks", { method: "POST", token: team.full, rawBody: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
  });

  it.each([
    ["private IPv4", "https://10.0.0.1/hook"],
    ["loopback", "https://127.0.0.1/hook"],
    ["loopback IPv6", "https://[::1]/hook"],
    ["link-local", "https://169.254.10.10/hook"],
    ["cloud metadata", "https://169.254.169.254/latest/meta-data"],
    ["IPv4-mapped IPv6", "https://[::ffff:127.0.0.1]/hook"],
    ["IPv4-mapped IPv6, hex", "https://[::ffff:a00:1]/hook"],
    ["decimal IPv4", "https://2130706433/hook"],
    ["octal IPv4", "https://0177.0.0.1/hook"],
    ["hex IPv4", "https://0x7f.1/hook"],
    ["CGNAT", "https://100.64.1.1/hook"],
    ["localhost", "https://localhost/hook"],
    ["metadata name", "https://metadata.google.internal/computeMetadata"],
    ["http when insecure is not allowed", "http://hooks.example.com/hook"],
    ["credentials", "https://user:pw@hooks.example.com/hook"],
    ["other scheme", "ftp://hooks.example.com/hook"],
    ["a name resolving to 10.0.0.1", "https://internal.example.com/hook"],
    ["a name with a mapped metadata AAAA", "https://sneaky.example.com/hook"],
    ["a name that does not resolve", "https://nowhere.example.com/hook"],
  ])("rejects %s with 422 on url (production rules)", async (_label, url) => {
    // Through the service with the production flags: the test pool may read a local .dev.vars
    // that allows private/insecure targets for development.
    const team = await makeTeam();
    const error = await createEndpoint(testServices(), teamContext(team.id), "enterprise", { url, events: ["*"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
    expect((error as ApiError).errors?.url?.[0]).toBeTruthy();
  });

  it("accepts a public https target under the production rules", async () => {
    const team = await makeTeam();
    const created = await createEndpoint(testServices(), teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
    expect(created.url).toBe("https://hooks.example.com/in");
  });

  it("answers 503 when the target's DNS cannot be resolved at all (never reads it as fine)", async () => {
    const team = await makeTeam();
    r.stub.setFault("hooks.example.com", "A", "servfail");
    const error = await createEndpoint(testServices(), teamContext(team.id), "enterprise", { url: "https://hooks.example.com/x", events: ["*"] }).catch(
      (e: unknown) => e,
    );
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).code).toBe("dependency_unavailable");
  });

  it("re-checks a changed URL on PATCH", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    const error = await updateEndpoint(testServices(), teamContext(team.id), hook.id, { url: "https://internal.example.com/in" }).catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(422);
    const res = await call("/api/v1/webhooks", { method: "POST", token: team.full, body: { url: "ftp://hooks.example.com/", events: ["*"] } });
    expect(res.status, "the HTTP route answers 422 on url too").toBe(422);
    expect(Object.keys((await json<Body>(res)).errors ?? {})).toEqual(["url"]);
  });
});

describe("PATCH /webhooks/{webhook}", () => {
  it("updates fields, re-checks a new URL, and applies the enabled rules", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, { events: ["domain.created"] });
    const path = `/api/v1/webhooks/${hook.id}`;
    let res = await call(path, {
      method: "PATCH",
      token: team.full,
      body: { events: ["alert.created"], description: "new", url: "https://other.example.com/in" },
    });
    expect(res.status).toBe(200);
    expect((await json<Body>(res)).data).toMatchObject({ events: ["alert.created"], description: "new", url: "https://other.example.com/in" });

    res = await call(path, { method: "PATCH", token: team.full, body: { url: "https://a:b@other.example.com/in" } });
    expect(res.status, "credentials in the URL").toBe(422);

    res = await call(path, { method: "PATCH", token: team.full, body: { enabled: false } });
    const off = (await json<Body>(res)).data;
    expect(off).toMatchObject({ enabled: false, disabled_reason: "manual" });
    expect(off.disabled_at).toBeTruthy();

    res = await call(path, { method: "PATCH", token: team.full, body: { enabled: true } });
    expect((await json<Body>(res)).data).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failure_count: 0 });

    res = await call(path, { method: "PATCH", token: team.full, body: { events: ["nope"] } });
    expect(res.status).toBe(422);
    res = await call(path, { method: "PATCH", token: team.full, body: { domain_ids: null } });
    expect((await json<Body>(res)).data.domain_ids).toBeNull();
  });
});

describe("rotate-secret and delete", () => {
  it("returns a new secret on rotation and deletes with 204", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    const res = await call(`/api/v1/webhooks/${hook.id}/rotate-secret`, { method: "POST", token: team.full });
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data.secret).toMatch(/^whsec_/);
    expect(data.secret).not.toBe(hook.secret);
    expect((await call(`/api/v1/webhooks/${hook.id}`, { method: "DELETE", token: team.full })).status).toBe(204);
    expect((await call(`/api/v1/webhooks/${hook.id}`, { token: team.full })).status).toBe(404);
  });
});

describe("security", () => {
  it("needs a token (401) and refuses writes to a read-only token (403)", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    expect((await call("/api/v1/webhooks")).status).toBe(401);
    expect((await call("/api/v1/webhook-events")).status).toBe(401);
    const writes: Array<[string, string, unknown?]> = [
      ["POST", "/api/v1/webhooks", { url: "https://hooks.example.com/x", events: ["*"] }],
      ["PATCH", `/api/v1/webhooks/${hook.id}`, { enabled: false }],
      ["DELETE", `/api/v1/webhooks/${hook.id}`],
      ["POST", `/api/v1/webhooks/${hook.id}/test`],
      ["POST", `/api/v1/webhooks/${hook.id}/rotate-secret`],
      ["POST", `/api/v1/webhooks/${hook.id}/deliveries/1/redeliver`],
    ];
    for (const [method, path, body] of writes) {
      const res = await call(path, { method, token: team.readOnly, body });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await json<Body>(await call(`/api/v1/webhooks/${hook.id}`, { token: team.full }))).data.enabled).toBe(true);
  });

  it("answers 404 for another team's endpoint on every route", async () => {
    const owner = await makeTeam();
    const intruder = await makeTeam();
    const hook = await createWebhook(owner.full, {});
    const test = await json<Body>(await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: owner.full }));
    const d = test.data.id;
    const routes: Array<[string, string, unknown?]> = [
      ["GET", `/api/v1/webhooks/${hook.id}`],
      ["PATCH", `/api/v1/webhooks/${hook.id}`, { enabled: false }],
      ["DELETE", `/api/v1/webhooks/${hook.id}`],
      ["POST", `/api/v1/webhooks/${hook.id}/test`],
      ["POST", `/api/v1/webhooks/${hook.id}/rotate-secret`],
      ["GET", `/api/v1/webhooks/${hook.id}/deliveries`],
      ["GET", `/api/v1/webhooks/${hook.id}/deliveries/${d}`],
      ["POST", `/api/v1/webhooks/${hook.id}/deliveries/${d}/redeliver`],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(path, { method, token: intruder.full, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const own = await createWebhook(intruder.full, {});
    expect((await call(`/api/v1/webhooks/${own.id}/deliveries/${d}`, { token: intruder.full })).status, "delivery of another endpoint").toBe(404);
    expect((await call("/api/v1/webhooks/abc", { token: owner.full })).status).toBe(404);
    const still = await json<Body>(await call(`/api/v1/webhooks/${hook.id}`, { token: owner.full }));
    expect(still.data.enabled).toBe(true);
  });
});
