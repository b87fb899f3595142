// The per-team webhook log (docs/decisions.md D140-D144): fan-out into the team's object, the endpoint's
// failure streak kept exact across replays and late D1 writes, re-enabling, tenancy (the object named by
// the team id alone; another team's endpoint or delivery is a 404), and what deleting an endpoint or a
// team does to the log.
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { webhookEndpoints } from "../../src/db/schema";
import { consumeDeliveries } from "../../src/queues/deliveries";
import { deleteTeam } from "../../src/services/accounts/members";
import { createEndpoint } from "../../src/services/webhooks/create-endpoint";
import { fanOutEvent } from "../../src/services/webhooks/fanout";
import { writeStreak } from "../../src/services/webhooks/outcome";
import { teamLog } from "../../src/services/webhooks/team-log";
import { call, json, makeTeam } from "../support/api";
import { teamContext } from "../support/context";
import { createWebhook, deliveriesOf, fakeBatch, fakeQueue, insertEvent, installReceiver, teamLogOf, teamSql, testServices } from "../support/webhooks";

let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(() => r.stub.restore());

const endpointRow = async (svc: ReturnType<typeof testServices>, id: number) =>
  (await svc.db.query.webhookEndpoints.findFirst({ where: eq(webhookEndpoints.id, id) }))!;

async function setup() {
  const q = fakeQueue();
  const svc = testServices(q);
  const team = await makeTeam();
  const hook = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
  /** One new event fanned out to the endpoint: its delivery id. */
  const newDelivery = async () => (await fanOutEvent(svc, (await insertEvent(svc, team.id, "alert.created")).id)).created[0]!;
  const consume = async (ids: number[]) => {
    const batch = fakeBatch(ids.map((id) => ({ kind: "deliver", team_id: team.id, endpoint_id: hook.id, delivery_id: id })));
    await consumeDeliveries(batch, svc);
    for (const m of batch.messages) expect(m.ack).toHaveBeenCalled();
  };
  return { q, svc, team, hook, newDelivery, consume };
}

describe("fan-out into the team's log", () => {
  it("fanning out twice creates one delivery per endpoint; the event is kept even when no endpoint takes it", async () => {
    const { svc, team, hook } = await setup();
    const other = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/b", events: ["alert.created"] });
    const ev = await insertEvent(svc, team.id, "alert.created");
    const first = await fanOutEvent(svc, ev.id);
    expect(first.created).toHaveLength(2);
    await svc.db.batch([ev.statement]); // the outbox row again, as after a crash before its delete
    const second = await fanOutEvent(svc, ev.id);
    expect(second.created).toEqual([]);
    expect((await deliveriesOf(team.id, { eventId: ev.id })).map((d) => d.endpointId).sort((a, b) => a - b)).toEqual([hook.id, other.id].sort((a, b) => a - b));

    const unmatched = await insertEvent(svc, team.id, "domain.created");
    await svc.db
      .update(webhookEndpoints)
      .set({ events: ["alert.created"] })
      .where(eq(webhookEndpoints.id, hook.id));
    expect((await fanOutEvent(svc, unmatched.id)).created).toEqual([]);
    expect(await teamSql(team.id, "SELECT id FROM events WHERE id = ?", unmatched.id)).toHaveLength(1);
    expect(
      await env.DB.prepare("SELECT id FROM events WHERE id IN (?, ?)")
        .bind(ev.id, unmatched.id)
        .all()
        .then((x) => x.results),
    ).toEqual([]);
  });

  it("delivery ids are assigned by the team's object and never reused", async () => {
    const { team, newDelivery } = await setup();
    const a = await newDelivery();
    const b = await newDelivery();
    expect(b).toBeGreaterThan(a);
    await teamSql(team.id, "DELETE FROM deliveries");
    expect(await newDelivery(), "the counter outlives the rows").toBeGreaterThan(b);
  });
});

describe("the endpoint's failure streak", () => {
  it("counts each final failure once: a replayed message and an older D1 write change nothing", async () => {
    const { svc, hook, newDelivery, consume } = await setup();
    r.respond(() => new Response("no", { status: 400 }));
    const ids = [await newDelivery(), await newDelivery(), await newDelivery()];
    for (const id of ids) await consume([id]);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ failureCount: 3, statsSeq: 3 });
    // Replays of settled deliveries (the queue redelivers after a lost ack) count nothing again.
    await consume(ids);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ failureCount: 3, statsSeq: 3 });
    // A late, older write (seq 1) loses against the newer one already in D1.
    const e = await endpointRow(svc, hook.id);
    await writeStreak(svc, e, { endpointId: hook.id, failureCount: 1, lastSuccessAt: null, lastFailureAt: Date.now(), disable: null, seq: 1 });
    expect(await endpointRow(svc, hook.id)).toMatchObject({ failureCount: 3, statsSeq: 3 });
    // A retrying attempt does not count.
    r.respond(() => new Response("later", { status: 503 }));
    await consume([await newDelivery()]);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ failureCount: 3 });
    // A delivered one resets it.
    r.respond(() => new Response("ok", { status: 200 }));
    await consume([await newDelivery()]);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ failureCount: 0, statsSeq: 4, enabled: true });
  });

  it("out-of-order D1 writes: the newest seq wins whichever arrives last, and disabling happens once", async () => {
    const { svc, hook } = await setup();
    const e = await endpointRow(svc, hook.id);
    const at = Date.now();
    const s20 = { endpointId: hook.id, failureCount: 20, lastSuccessAt: null, lastFailureAt: at, disable: "consecutive_failures" as const, seq: 20 };
    const s19 = { ...s20, failureCount: 19, disable: null, seq: 19, lastFailureAt: at - 1000 };
    await writeStreak(svc, e, s20);
    await writeStreak(svc, e, s19);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ failureCount: 20, enabled: false, disabledReason: "consecutive_failures", statsSeq: 20 });
    expect((await endpointRow(svc, hook.id)).disabledAt?.getTime()).toBe(at);
    await writeStreak(svc, e, s20); // replayed
    const notes = await env.DB.prepare("SELECT COUNT(*) AS n FROM notifications WHERE team_id = ? AND kind = 'webhook_endpoint_disabled'")
      .bind(e.teamId)
      .first<{ n: number }>();
    expect(notes?.n, "one owner notice").toBe(1);
  });

  it("19 failures in a row leave the endpoint enabled, the 20th disables it; a 410 disables at once", async () => {
    const { svc, team, hook, newDelivery, consume } = await setup();
    r.respond(() => new Response("no", { status: 400 }));
    for (let i = 0; i < 19; i++) await consume([await newDelivery()]);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ enabled: true, failureCount: 19 });
    await consume([await newDelivery()]);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ enabled: false, failureCount: 20, disabledReason: "consecutive_failures" });
    const [streak] = await teamSql<{ failure_count: number; disable: string }>(
      team.id,
      "SELECT failure_count, disable FROM endpoint_streaks WHERE endpoint_id = ?",
      hook.id,
    );
    expect(streak).toEqual({ failure_count: 20, disable: "consecutive_failures" });

    const gone = await setup();
    r.respond(() => new Response("gone", { status: 410 }));
    await gone.consume([await gone.newDelivery()]);
    expect(await endpointRow(gone.svc, gone.hook.id)).toMatchObject({ enabled: false, failureCount: 1, disabledReason: "gone" });
  });

  it("re-enabling resets the streak in the team's log first, then in D1: the next failure counts 1", async () => {
    const team = await makeTeam();
    const hook = await createWebhook(team.full, { events: ["*"] });
    const svc = testServices();
    r.respond(() => new Response("no", { status: 400 }));
    const consume = async (id: number) => consumeDeliveries(fakeBatch([{ kind: "deliver", team_id: team.id, endpoint_id: hook.id, delivery_id: id }]), svc);
    for (let i = 0; i < 20; i++) await consume((await fanOutEvent(svc, (await insertEvent(svc, team.id, "alert.created")).id)).created[0]!);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ enabled: false, failureCount: 20 });
    const res = await call(`/api/v1/webhooks/${hook.id}`, { method: "PATCH", token: team.full, body: { enabled: true } });
    expect((await json<{ data: Record<string, unknown> }>(res)).data).toMatchObject({ enabled: true, failure_count: 0, disabled_reason: null });
    const [streak] = await teamSql<{ failure_count: number; disable: string | null }>(
      team.id,
      "SELECT failure_count, disable FROM endpoint_streaks WHERE endpoint_id = ?",
      hook.id,
    );
    expect(streak).toEqual({ failure_count: 0, disable: null });
    await consume((await fanOutEvent(svc, (await insertEvent(svc, team.id, "alert.created")).id)).created[0]!);
    expect(await endpointRow(svc, hook.id)).toMatchObject({ enabled: true, failureCount: 1 });
  });
});

describe("a queue batch", () => {
  it("claims each team's deliveries in one call; a team whose claim fails is retried, the other is delivered", async () => {
    const a = await setup();
    const b = await setup();
    const aIds = [await a.newDelivery(), await a.newDelivery()];
    const bId = await b.newDelivery();
    const original = env.TEAM_WEBHOOKS.getByName.bind(env.TEAM_WEBHOOKS);
    const calls: string[] = [];
    const spy = vi.spyOn(env.TEAM_WEBHOOKS, "getByName").mockImplementation((name: string) => {
      calls.push(name);
      if (name !== `team:${b.team.id}`) return original(name);
      return { claimMany: async () => Promise.reject(new Error("object unavailable (test)")) } as unknown as ReturnType<typeof original>;
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const batch = fakeBatch([
      ...aIds.map((id) => ({ kind: "deliver", team_id: a.team.id, endpoint_id: a.hook.id, delivery_id: id })),
      { kind: "deliver", team_id: b.team.id, endpoint_id: b.hook.id, delivery_id: bId },
    ]);
    await consumeDeliveries(batch, a.svc);
    spy.mockRestore();
    errors.mockRestore();
    expect(calls.filter((n) => n === `team:${a.team.id}`).length, "one claim call for team a's two deliveries, one outcome call each").toBe(3);
    expect(batch.messages[0]!.ack).toHaveBeenCalled();
    expect(batch.messages[1]!.ack).toHaveBeenCalled();
    expect(batch.messages[2]!.retry).toHaveBeenCalledWith({ delaySeconds: 30 });
    expect((await deliveriesOf(a.team.id, { ids: aIds })).map((d) => d.status)).toEqual(["delivered", "delivered"]);
    expect((await deliveriesOf(b.team.id, { ids: [bId] }))[0]).toMatchObject({ status: "pending", attempts: 0 });
  });
});

describe("tenancy", () => {
  it("names the object by the team id alone; another team's endpoint or delivery id is a 404, and a forged message sends nothing", async () => {
    const mine = await makeTeam();
    const theirs = await makeTeam();
    const own = await createWebhook(mine.full, { events: ["*"] });
    const foreign = await createWebhook(theirs.full, { events: ["*"] });
    const sent = await json<{ data: { id: number } }>(await call(`/api/v1/webhooks/${foreign.id}/test`, { method: "POST", token: theirs.full }));
    const mineSent = await json<{ data: { id: number } }>(await call(`/api/v1/webhooks/${own.id}/test`, { method: "POST", token: mine.full }));
    expect(teamLog({ env } as never, { id: theirs.id }).id.toString()).toBe(env.TEAM_WEBHOOKS.idFromName(`team:${theirs.id}`).toString());
    const ids = (await listDurableObjectIds(env.TEAM_WEBHOOKS)).map((i) => i.toString());
    expect(ids).toEqual(
      expect.arrayContaining([env.TEAM_WEBHOOKS.idFromName(`team:${mine.id}`).toString(), env.TEAM_WEBHOOKS.idFromName(`team:${theirs.id}`).toString()]),
    );

    expect((await call(`/api/v1/webhooks/${foreign.id}/deliveries`, { token: mine.full })).status).toBe(404);
    expect((await call(`/api/v1/webhooks/${foreign.id}/deliveries/${sent.data.id}`, { token: mine.full })).status).toBe(404);
    expect((await call(`/api/v1/webhooks/${foreign.id}/deliveries/${sent.data.id}/redeliver`, { method: "POST", token: mine.full })).status).toBe(404);
    // A delivery id that exists only in the other team's log, asked under my endpoint.
    if (sent.data.id !== mineSent.data.id) expect((await call(`/api/v1/webhooks/${own.id}/deliveries/${sent.data.id}`, { token: mine.full })).status).toBe(404);

    // A deliver message naming my team with their endpoint finds no endpoint in my team: nothing is sent.
    const before = r.received.length;
    const batch = fakeBatch([{ kind: "deliver", team_id: mine.id, endpoint_id: foreign.id, delivery_id: sent.data.id }]);
    await consumeDeliveries(batch, testServices());
    expect(batch.messages[0]!.ack).toHaveBeenCalled();
    expect(r.received.length).toBe(before);
  });
});

describe("deleting", () => {
  it("deleting an endpoint empties its deliveries in the team's log; other endpoints keep theirs", async () => {
    const team = await makeTeam();
    const a = await createWebhook(team.full, { events: ["*"] });
    const b = await createWebhook(team.full, { events: ["*"], url: "https://hooks.example.com/b" });
    await call(`/api/v1/webhooks/${a.id}/test`, { method: "POST", token: team.full });
    await call(`/api/v1/webhooks/${b.id}/test`, { method: "POST", token: team.full });
    expect(await deliveriesOf(team.id, { endpointId: a.id })).toHaveLength(1);
    expect((await call(`/api/v1/webhooks/${a.id}`, { method: "DELETE", token: team.full })).status).toBe(204);
    expect(await deliveriesOf(team.id, { endpointId: a.id })).toEqual([]);
    expect(await deliveriesOf(team.id, { endpointId: b.id })).toHaveLength(1);
    expect(await teamSql(team.id, "SELECT endpoint_id FROM endpoint_streaks WHERE endpoint_id = ?", a.id)).toEqual([]);
  });

  it("deleting a team destroys its webhook log and its alarm", async () => {
    const owner = await makeTeam();
    const hook = await createWebhook(owner.full, { events: ["*"] });
    await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: owner.full });
    expect(await deliveriesOf(owner.id)).toHaveLength(1);
    const row = await env.DB.prepare("SELECT name FROM teams WHERE id = ?").bind(owner.id).first<{ name: string }>();
    await deleteTeam(testServices(), { teamId: owner.id, role: "owner" } as Parameters<typeof deleteTeam>[1], row?.name ?? "");
    await runInDurableObject(teamLogOf(owner.id), async (_i, state) => {
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'deliveries'").one().n).toBe(0);
      expect(await state.storage.getAlarm()).toBeNull();
      expect(state.storage.kv.get("next_delivery_id")).toBeUndefined();
    });
  });
});
