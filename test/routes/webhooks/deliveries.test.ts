import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { call, json, makeTeam } from "../../support/api";
import { createWebhook, installReceiver, setDeliveries } from "../../support/webhooks";

type Body = { data: Record<string, any>; meta?: Record<string, number> };
let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(() => r.stub.restore());

const hooksOnly = () => r.received.filter((x) => x.url.startsWith("https://hooks.example.com/"));

describe("POST /webhooks/{webhook}/test", () => {
  it("sends a webhook.test event now, signed so that the standardwebhooks library verifies it", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, { events: ["domain.created"] });
    const other = await createWebhook(team.full, { url: "https://hooks.example.com/other", events: ["*"] });
    const res = await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full });
    expect(res.status).toBe(202);
    const { data } = await json<Body>(res);
    expect(data).toMatchObject({ event: "webhook.test", status: "delivered", attempts: 1, response_status: 200, error: null, next_retry_at: null });
    expect(data.event_id).toMatch(/^evt_/);

    const got = hooksOnly();
    expect(got, "only the tested endpoint receives it").toHaveLength(1);
    const msg = got[0]!;
    expect(msg.url).toBe("https://hooks.example.com/in");
    const verified = new Webhook(hook.secret).verify(msg.body, msg.headers) as Record<string, any>;
    expect(verified).toMatchObject({ id: data.event_id, type: "webhook.test", api_version: "2026-10-10", data: { webhook: { id: hook.id } } });
    expect(msg.headers["webhook-id"]).toBe(data.event_id);
    expect(msg.headers["x-service-event"]).toBe("webhook.test");
    expect(msg.headers["x-service-delivery"]).toBe(`${data.id}/1`);
    expect(msg.headers["content-type"]).toBe("application/json");
    expect(() => new Webhook(other.secret).verify(msg.body, msg.headers), "another endpoint's secret does not verify").toThrow();
  });

  it("records a failed test attempt with the response and schedules a retry", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    r.respond(() => new Response("x".repeat(10_000), { status: 503, headers: { "x-trace": "abc", "set-cookie": "s=1" } }));
    const { data } = await json<Body>(await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full }));
    expect(data).toMatchObject({ status: "pending", attempts: 1, response_status: 503 });
    const wait = Date.parse(data.next_retry_at) - Date.now();
    expect(wait).toBeGreaterThan(50_000);
    expect(wait).toBeLessThan(70_000);
    const detail = await json<Body>(await call(`/api/v1/webhooks/${hook.id}/deliveries/${data.id}`, { token: team.readOnly }));
    expect(detail.data.response.status).toBe(503);
    expect(detail.data.response.body).toHaveLength(4096);
    expect(detail.data.response.headers["x-trace"]).toBe("abc");
    expect(detail.data.response.headers["set-cookie"]).toBeUndefined();
    expect(detail.data.payload).toMatchObject({ id: data.event_id, type: "webhook.test" });
  });
});

describe("rotation", () => {
  it("signs with both secrets for 24 h; a receiver holding either one verifies", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    const rotated = await json<Body>(await call(`/api/v1/webhooks/${hook.id}/rotate-secret`, { method: "POST", token: team.full }));
    await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full });
    const msg = hooksOnly()[0]!;
    const sigs = msg.headers["webhook-signature"]!.split(" ");
    expect(sigs).toHaveLength(2);
    for (const s of sigs) expect(s).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(hook.secret).verify(msg.body, msg.headers)).toBeTruthy();
    expect(new Webhook(rotated.data.secret).verify(msg.body, msg.headers)).toBeTruthy();
  });
});

describe("several rotations within 24 hours", () => {
  it("every secret still inside its window signs: a receiver holding any of them verifies; a sixth live secret is a 409", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    const secrets = [hook.secret];
    for (let i = 0; i < 4; i++) {
      const res = await call(`/api/v1/webhooks/${hook.id}/rotate-secret`, { method: "POST", token: team.full });
      expect(res.status).toBe(200);
      secrets.push((await json<Body>(res)).data.secret);
    }
    const refused = await call(`/api/v1/webhooks/${hook.id}/rotate-secret`, { method: "POST", token: team.full });
    expect(refused.status, "at most 1 + 4 signatures").toBe(409);
    await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full });
    const msg = hooksOnly()[0]!;
    expect(msg.headers["webhook-signature"]!.split(" ")).toHaveLength(5);
    for (const secret of secrets) expect(new Webhook(secret).verify(msg.body, msg.headers), "each live secret verifies").toBeTruthy();
  });
});

describe("redeliver while an attempt is in flight", () => {
  it("is a 409 while a consumer holds the lease, and works once the lease is over", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    const { data } = await json<Body>(await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full }));
    await setDeliveries(team.id, [data.id], { status: "pending", leasedUntil: Date.now() + 60_000 });
    const before = hooksOnly().length;
    const busy = await call(`/api/v1/webhooks/${hook.id}/deliveries/${data.id}/redeliver`, { method: "POST", token: team.full });
    expect(busy.status).toBe(409);
    expect(hooksOnly().length, "nothing sent twice").toBe(before);
    await setDeliveries(team.id, [data.id], { leasedUntil: Date.now() - 1 });
    const ok = await call(`/api/v1/webhooks/${hook.id}/deliveries/${data.id}/redeliver`, { method: "POST", token: team.full });
    expect(ok.status).toBe(202);
    expect(hooksOnly().length).toBe(before + 1);
  });
});

describe("delivery log", () => {
  it("lists deliveries newest first with status and event filters and pagination", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full });
    r.respond(() => new Response("no", { status: 400 }));
    await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full });
    const base = `/api/v1/webhooks/${hook.id}/deliveries`;
    const all = await json<Body>(await call(base, { token: team.readOnly }));
    expect(all.data.map((d: { status: string }) => d.status)).toEqual(["failed", "delivered"]);
    expect(all.meta).toEqual({ current_page: 1, per_page: 25, total: 2, last_page: 1 });
    const failed = await json<Body>(await call(`${base}?status=failed`, { token: team.full }));
    expect(failed.data).toHaveLength(1);
    expect(failed.data[0]).toMatchObject({ status: "failed", response_status: 400, error: "receiver answered 400" });
    expect((await json<Body>(await call(`${base}?event=domain.created`, { token: team.full }))).data).toHaveLength(0);
    const page2 = await json<Body>(await call(`${base}?per_page=1&page=2`, { token: team.full }));
    expect(page2.data[0].status).toBe("delivered");
    expect(page2.meta?.last_page).toBe(2);
    expect((await call(`${base}?status=lost`, { token: team.full })).status).toBe(422);
    expect((await call(`${base}?per_page=500`, { token: team.full })).status).toBe(422);
    expect((await call(`${base}/999999999`, { token: team.full })).status).toBe(404);
  });

  it("deletes the delivery log with the endpoint", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    const { data } = await json<Body>(await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full }));
    expect((await call(`/api/v1/webhooks/${hook.id}`, { method: "DELETE", token: team.full })).status).toBe(204);
    expect((await call(`/api/v1/webhooks/${hook.id}/deliveries/${data.id}`, { token: team.full })).status).toBe(404);
  });
});

describe("POST .../redeliver", () => {
  it("sends again under the same webhook-id with a fresh signature, on the same delivery", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    r.respond(() => new Response("bad", { status: 422 }));
    const first = (await json<Body>(await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full }))).data;
    expect(first.status).toBe("failed");
    // A second later (the clock moved, not waited for; test/setup.ts restores it): a new webhook-timestamp.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1_000 });
    r.respond(() => new Response(null, { status: 204 }));
    const res = await call(`/api/v1/webhooks/${hook.id}/deliveries/${first.id}/redeliver`, { method: "POST", token: team.full });
    expect(res.status).toBe(202);
    const again = (await json<Body>(res)).data;
    expect(again).toMatchObject({ id: first.id, event_id: first.event_id, status: "delivered", attempts: 2, response_status: 204, error: null });
    const [a, b] = hooksOnly();
    expect(b!.headers["webhook-id"]).toBe(a!.headers["webhook-id"]);
    expect(b!.body).toBe(a!.body);
    expect(b!.headers["webhook-timestamp"]).not.toBe(a!.headers["webhook-timestamp"]);
    expect(b!.headers["webhook-signature"]).not.toBe(a!.headers["webhook-signature"]);
    expect(b!.headers["x-service-delivery"]).toBe(`${first.id}/2`);
    expect(new Webhook(hook.secret).verify(b!.body, b!.headers)).toBeTruthy();
    const list = await json<Body>(await call(`/api/v1/webhooks/${hook.id}/deliveries`, { token: team.full }));
    expect(list.meta?.total, "no second delivery row").toBe(1);
  });
});
