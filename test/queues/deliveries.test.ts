import { env } from "cloudflare:workers";
import { teamContext } from "../support/context";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { events, notifications, webhookEndpoints } from "../../src/db/schema";
import { consumeDeliveries } from "../../src/queues/deliveries";
import { createServices } from "../../src/services";
import { notifyOwner } from "../../src/services/notifications/notify-owner";
import { createEndpoint } from "../../src/services/webhooks/create-endpoint";
import { fanOutEvent } from "../../src/services/webhooks/fanout";
import { makeTeam } from "../support/api";
import { deliveriesOf, deliveryOf, fakeBatch, fakeQueue, insertDomain, insertEvent, installReceiver, setDeliveries, testServices } from "../support/webhooks";

let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver({ "moved.example.com": { A: ["93.184.216.34"] } });
});
afterEach(() => r.stub.restore());

const db = () => createServices(env).db;
/** A delivery of the team's webhook log (docs/decisions.md D140). */
const delivery = async (teamId: number, id: number) => (await deliveryOf(teamId, id))!;
/** The deliver message of a delivery: it names its team and endpoint (D141). */
const deliverMsg = (teamId: number, endpointId: number, id: number) => ({ kind: "deliver", team_id: teamId, endpoint_id: endpointId, delivery_id: id });
const endpoint = async (id: number) => (await db().query.webhookEndpoints.findFirst({ where: eq(webhookEndpoints.id, id) }))!;

/** A team with one endpoint and one fanned-out event: returns the delivery id. */
async function oneDelivery(events: string[] = ["*"]) {
  const q = fakeQueue();
  const svc = testServices(q);
  const team = await makeTeam();
  const hook = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events });
  const ev = await insertEvent(svc, team.id, "alert.created");
  const { created } = await fanOutEvent(svc, ev.id);
  expect(created).toHaveLength(1);
  return { q, svc, team, hook, ev, id: created[0]! };
}

async function consume(svc: ReturnType<typeof testServices>, teamId: number, endpointId: number, ids: number[]) {
  const batch = fakeBatch(ids.map((id) => deliverMsg(teamId, endpointId, id)));
  await consumeDeliveries(batch, svc);
  for (const m of batch.messages) expect(m.ack).toHaveBeenCalled();
  return batch;
}

describe("fan-out", () => {
  it("matches enabled endpoints by event type and domain_ids", async () => {
    const q = fakeQueue();
    const svc = testServices(q);
    const team = await makeTeam();
    const d1 = await insertDomain(team.id);
    const d2 = await insertDomain(team.id);
    const url = "https://hooks.example.com/in";
    const verifiedAll = await createEndpoint(svc, teamContext(team.id), "enterprise", { url, events: ["domain.verified"] });
    const starD1 = await createEndpoint(svc, teamContext(team.id), "enterprise", { url, events: ["*"], domain_ids: [d1.id] });
    const alerts = await createEndpoint(svc, teamContext(team.id), "enterprise", { url, events: ["alert.created"] });
    const disabled = await createEndpoint(svc, teamContext(team.id), "enterprise", { url, events: ["*"] });
    await db().update(webhookEndpoints).set({ enabled: false, disabledReason: "manual" }).where(eq(webhookEndpoints.id, disabled.id));
    const otherTeam = await makeTeam();
    await createEndpoint(svc, teamContext(otherTeam.id), "enterprise", { url, events: ["*"] });

    const endpointsOf = async (evId: string) => (await deliveriesOf(team.id, { eventId: evId })).map((d) => d.endpointId).sort((a, b) => a - b);

    const e1 = await insertEvent(svc, team.id, "domain.verified", { id: d1.id, name: d1.name });
    await fanOutEvent(svc, e1.id);
    expect(await endpointsOf(e1.id)).toEqual([verifiedAll.id, starD1.id].sort((a, b) => a - b));
    const e2 = await insertEvent(svc, team.id, "domain.verified", { id: d2.id, name: d2.name });
    await fanOutEvent(svc, e2.id);
    expect(await endpointsOf(e2.id)).toEqual([verifiedAll.id]);
    const e3 = await insertEvent(svc, team.id, "alert.created");
    await fanOutEvent(svc, e3.id);
    expect(await endpointsOf(e3.id), "a team-wide event skips domain-restricted endpoints").toEqual([alerts.id]);
    const e4 = await insertEvent(svc, team.id, "webhook.test");
    await fanOutEvent(svc, e4.id);
    expect(await endpointsOf(e4.id), "webhook.test never fans out").toEqual([]);

    expect(q.sent.map((m) => (m.body as { kind: string }).kind)).toEqual(["deliver", "deliver", "deliver", "deliver"]);
  });

  it("is idempotent: a repeated fan-out creates no second delivery, only sends the unattempted one again", async () => {
    const { q, svc, team, hook, ev, id } = await oneDelivery();
    expect(q.sent).toEqual([{ body: deliverMsg(team.id, hook.id, id), delaySeconds: undefined }]);
    expect((await fanOutEvent(svc, ev.id)).skipped, "the outbox row is gone once fanned out").toBe("missing");
    // A crash between the team log's write and the D1 delete leaves the outbox row: the next run heals.
    await svc.db.batch([ev.statement]);
    const again = await fanOutEvent(svc, ev.id);
    expect(again.created, "unique (event, endpoint)").toEqual([]);
    expect(again.enqueued, "the still unattempted delivery is sent again (the claim guards it)").toEqual([id]);
    expect(q.sent).toHaveLength(2);
    expect(await deliveriesOf(team.id, { eventId: ev.id })).toHaveLength(1);
    expect((await svc.db.select().from(events).where(eq(events.id, ev.id))).length, "the outbox row is deleted this time").toBe(0);
    await consume(svc, team.id, hook.id, [id, id]);
    expect(
      r.received.filter((x) => x.url.includes("hooks.example.com")),
      "the duplicate message sends nothing twice",
    ).toHaveLength(1);
    expect((await fanOutEvent(svc, "evt_missing")).skipped).toBe("missing");
  });

  it("goes through the consumer for a fanout message", async () => {
    const q = fakeQueue();
    const svc = testServices(q);
    const team = await makeTeam();
    await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
    const ev = await insertEvent(svc, team.id, "alert.created");
    const batch = fakeBatch([{ kind: "fanout", event_id: ev.id }, { kind: "bogus" }]);
    await consumeDeliveries(batch, svc);
    expect(batch.messages[0]!.ack).toHaveBeenCalled();
    expect(batch.messages[1]!.ack, "a malformed message is dropped, not retried").toHaveBeenCalled();
    expect(q.sent).toHaveLength(1);
  });
});

describe("delivery through the consumer", () => {
  it("delivers a signed request that the standardwebhooks library verifies, and resets the failure streak", async () => {
    const { svc, team, hook, ev, id } = await oneDelivery();
    await db().update(webhookEndpoints).set({ failureCount: 7 }).where(eq(webhookEndpoints.id, hook.id));
    await consume(svc, team.id, hook.id, [id]);
    const got = r.received.at(-1)!;
    const payload = new Webhook(hook.secret!).verify(got.body, got.headers) as Record<string, unknown>;
    expect(payload).toMatchObject({ id: ev.id, type: "alert.created", api_version: "2026-10-10", data: { note: "test" } });
    expect(got.headers["webhook-id"]).toBe(ev.id);
    const d = await delivery(team.id, id);
    expect(d).toMatchObject({ status: "delivered", attempts: 1, responseStatus: 200, nextRetryAt: null });
    expect(d.deliveredAt).toBeInstanceOf(Date);
    expect(d.durationMs).toBeGreaterThanOrEqual(0);
    const e = await endpoint(hook.id);
    expect(e.failureCount).toBe(0);
    expect(e.lastSuccessAt).toBeInstanceOf(Date);
    await consume(svc, team.id, hook.id, [id]);
    expect(
      r.received.filter((x) => x.url.includes("hooks.example.com")),
      "a settled delivery is not sent again",
    ).toHaveLength(1);
  });

  it("500: stays pending, next_retry_at about a minute out, message re-sent with that delay", async () => {
    const { q, svc, team, hook, id } = await oneDelivery();
    r.respond(() => new Response("boom", { status: 500 }));
    const before = Date.now();
    await consume(svc, team.id, hook.id, [id]);
    const d = await delivery(team.id, id);
    expect(d).toMatchObject({ status: "pending", attempts: 1, responseStatus: 500, error: "receiver answered 500", responseBody: "boom" });
    const wait = (d.nextRetryAt!.getTime() - before) / 1000;
    expect(wait).toBeGreaterThanOrEqual(53);
    expect(wait).toBeLessThanOrEqual(67);
    const resent = q.sent.at(-1)!;
    expect(resent.body).toEqual(deliverMsg(team.id, hook.id, id));
    expect(resent.delaySeconds).toBeGreaterThanOrEqual(54);
    expect(resent.delaySeconds).toBeLessThanOrEqual(66);

    const sends = q.sent.length;
    await consume(svc, team.id, hook.id, [id]);
    expect(q.sent.length, "an early duplicate message is dropped").toBe(sends);
    expect(r.received.filter((x) => x.url.includes("hooks.example.com"))).toHaveLength(1);
  });

  it("429 with Retry-After waits as long as the receiver asks", async () => {
    const { q, svc, team, hook, id } = await oneDelivery();
    r.respond(() => new Response("slow down", { status: 429, headers: { "retry-after": "3600" } }));
    await consume(svc, team.id, hook.id, [id]);
    expect((await delivery(team.id, id)).status).toBe("pending");
    expect(q.sent.at(-1)!.delaySeconds).toBe(3600);
  });

  it("400 is final: failed, and the endpoint's failure streak grows", async () => {
    const { svc, team, hook, id } = await oneDelivery();
    r.respond(() => new Response("nope", { status: 400 }));
    await consume(svc, team.id, hook.id, [id]);
    expect(await delivery(team.id, id)).toMatchObject({ status: "failed", attempts: 1, responseStatus: 400, nextRetryAt: null });
    const e = await endpoint(hook.id);
    expect(e).toMatchObject({ failureCount: 1, enabled: true });
    expect(e.lastFailureAt).toBeInstanceOf(Date);
  });

  it("410 disables the endpoint at once", async () => {
    const { svc, team, hook, id } = await oneDelivery();
    r.respond(() => new Response("gone", { status: 410 }));
    await consume(svc, team.id, hook.id, [id]);
    expect((await delivery(team.id, id)).status).toBe("failed");
    expect(await endpoint(hook.id)).toMatchObject({ enabled: false, disabledReason: "gone", failureCount: 1 });
  });

  it("a 3xx is not followed and is retried", async () => {
    const { svc, team, hook, id } = await oneDelivery();
    r.respond(() => new Response(null, { status: 302, headers: { location: "https://169.254.169.254/" } }));
    await consume(svc, team.id, hook.id, [id]);
    expect(await delivery(team.id, id)).toMatchObject({ status: "pending", responseStatus: 302, error: "redirect (302) not followed" });
    expect(r.received.some((x) => x.url.includes("169.254"))).toBe(false);
  });

  it("fails once the 8 attempts are spent", async () => {
    const { svc, team, hook, id } = await oneDelivery();
    await setDeliveries(team.id, [id], { attempts: 7 });
    r.respond(() => new Response("boom", { status: 503 }));
    await consume(svc, team.id, hook.id, [id]);
    const d = await delivery(team.id, id);
    expect(d).toMatchObject({ status: "failed", attempts: 8, nextRetryAt: null });
    expect(d.error).toContain("all 8 attempts spent");
    expect((await endpoint(hook.id)).failureCount).toBe(1);
  });

  it("splits a wait longer than the queue's maximum delay into hops", async () => {
    const { q, svc, team, hook, id } = await oneDelivery();
    await setDeliveries(team.id, [id], { attempts: 6 });
    r.respond(() => new Response("boom", { status: 500 }));
    await consume(svc, team.id, hook.id, [id]);
    const d = await delivery(team.id, id);
    const total = (d.nextRetryAt!.getTime() - d.updatedAt.getTime()) / 1000; // 24 h ± 10%
    expect(total).toBeGreaterThan(77_000);
    expect(q.sent.at(-1)!.delaySeconds).toBe(43_200);

    // The hop arrives 12 h later: re-sent with the rest of the wait, nothing sent to the receiver.
    const later = new Date(d.updatedAt.getTime() + 43_200_000);
    const hopSvc = testServices(q, () => later);
    const sends = q.sent.length;
    await consume(hopSvc, team.id, hook.id, [id]);
    expect(q.sent.length).toBe(sends + 1);
    const rest = q.sent.at(-1)!.delaySeconds!;
    expect(Math.abs(rest - Math.min(total - 43_200, 43_200)), "the rest, itself capped at one hop").toBeLessThanOrEqual(2);
    expect(r.received.filter((x) => x.url.includes("hooks.example.com"))).toHaveLength(1);
  });

  it("re-checks the target before sending: a name now resolving to a private address is refused", async () => {
    const { svc, team, hook, id } = await oneDelivery();
    r.stub.restore();
    r = installReceiver({ "hooks.example.com": { A: ["10.0.0.1"] } });
    await consume(svc, team.id, hook.id, [id]);
    const d = await delivery(team.id, id);
    expect(d.status).toBe("failed");
    expect(d.error).toContain("target refused");
    expect(r.received.filter((x) => x.url.includes("hooks.example.com"))).toHaveLength(0);
    expect((await endpoint(hook.id)).failureCount).toBe(1);
  });
});

describe("disable after 20 consecutive failed deliveries", () => {
  it("disables the endpoint with reason consecutive_failures and records the owner notice once", async () => {
    const q = fakeQueue();
    const svc = testServices(q);
    const team = await makeTeam();
    const hook = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
    r.respond(() => new Response("bad", { status: 400 }));
    const ids: number[] = [];
    for (let i = 0; i < 21; i++) {
      const ev = await insertEvent(svc, team.id, "alert.created");
      ids.push(...(await fanOutEvent(svc, ev.id)).created);
    }
    for (const id of ids.slice(0, 19)) await consume(svc, team.id, hook.id, [id]);
    expect(await endpoint(hook.id)).toMatchObject({ enabled: true, failureCount: 19 });
    await consume(svc, team.id, hook.id, [ids[19]!]);
    const e = await endpoint(hook.id);
    expect(e).toMatchObject({ enabled: false, failureCount: 20, disabledReason: "consecutive_failures" });
    expect(e.disabledAt).toBeInstanceOf(Date);

    await consume(svc, team.id, hook.id, [ids[20]!]);
    expect(await delivery(team.id, ids[20]!)).toMatchObject({ status: "failed", error: "endpoint disabled; not sent", attempts: 0 });
    expect(r.received.filter((x) => x.url.includes("hooks.example.com"))).toHaveLength(20);

    const notes = await db().select().from(notifications).where(eq(notifications.teamId, team.id));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: "webhook_endpoint_disabled", sentAt: null });
    expect(notes[0]!.recipient).toMatch(/@example\.com$/);
    expect(notes[0]!.body).toContain("https://hooks.example.com/in");
    expect(notes[0]!.error).toMatch(/not sent/);
  });

  it("emails the owner through the send_email binding when it is configured", async () => {
    const team = await makeTeam();
    const send = vi.fn(async () => ({ messageId: "m1" }));
    const svc = createServices({ ...env, SEND_EMAIL: { send } as unknown as SendEmail, NOTIFY_FROM: "alerts@service.test" });
    const out = await notifyOwner(svc, { teamId: team.id, kind: "webhook_endpoint_disabled", subject: "s", body: "b" });
    expect(out).toMatchObject({ sent: true, error: null });
    expect(send).toHaveBeenCalledWith(expect.objectContaining({ from: "alerts@service.test", subject: "s", text: "b" }));
    const [row] = await db().select().from(notifications).where(eq(notifications.teamId, team.id));
    expect(row!.sentAt).toBeInstanceOf(Date);
  });
});
