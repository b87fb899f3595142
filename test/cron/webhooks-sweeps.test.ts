// The webhook sweeps: the outbox sweep (every-minute cron) and, in each team's webhook log object, the
// alarm's retry sweep and the delivery log's 30-day retention (docs/decisions.md D144). The alarm runs
// through runDurableObjectAlarm with a pinned clock (the object reads the pool isolate's Date).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { inArray } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { events } from "../../src/db/schema";
import { createServices } from "../../src/services";
import { createEndpoint } from "../../src/services/webhooks/create-endpoint";
import { fanOutEvent } from "../../src/services/webhooks/fanout";
import { sweepOutbox } from "../../src/services/webhooks/sweeps";
import { makeTeam } from "../support/api";
import { teamContext } from "../support/context";
import {
  deliveriesOf,
  deliveryOf,
  fakeQueue,
  insertEvent,
  installReceiver,
  logEventsOf,
  setDeliveries,
  teamLogOf,
  teamSql,
  testServices,
} from "../support/webhooks";

const MIN = 60_000;
const DAY = 86_400_000;
let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(() => {
  r.stub.restore();
  vi.restoreAllMocks();
});

const db = () => createServices(env).db;

async function setup() {
  const q = fakeQueue();
  const svc = testServices(q);
  const team = await makeTeam();
  const hook = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
  return { q, svc, team, hook };
}

const sentFanouts = (q: ReturnType<typeof fakeQueue>) => q.sent.map((m) => (m.body as { event_id?: string }).event_id).filter(Boolean);
const alarmOf = (teamId: number) => runInDurableObject(teamLogOf(teamId), (_i, state) => state.storage.getAlarm());

/** Records what the object's alarm puts on the deliveries queue (its env is the pool's env). */
function spyResends() {
  const spy = vi.spyOn(env.DELIVERIES_QUEUE, "sendBatch").mockResolvedValue(undefined as never);
  return () => spy.mock.calls.flatMap(([msgs]) => [...msgs].map((m) => m.body as { kind: string; team_id: number; endpoint_id: number; delivery_id: number }));
}

describe("outbox sweep (every minute)", () => {
  it("enqueues fan-out for events older than a minute that were never fanned out", async () => {
    const { q, svc, team } = await setup();
    const stale = await insertEvent(svc, team.id, "alert.created");
    const fresh = await insertEvent(svc, team.id, "alert.created");
    const done = await insertEvent(svc, team.id, "alert.created");
    await db()
      .update(events)
      .set({ createdAt: new Date(Date.now() - 2 * MIN) })
      .where(inArray(events.id, [stale.id, done.id]));
    await fanOutEvent(svc, done.id);
    q.sent.length = 0;
    await sweepOutbox(svc);
    const swept = sentFanouts(q);
    expect(swept).toContain(stale.id);
    expect(swept).not.toContain(fresh.id);
    expect(swept).not.toContain(done.id);
  });
});

describe("retry sweep (the team log's alarm)", () => {
  it("re-enqueues pending deliveries well past due or never attempted, and marks them due now", async () => {
    const { svc, team, hook } = await setup();
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(...(await fanOutEvent(svc, (await insertEvent(svc, team.id, "alert.created")).id)).created);
    const [lost, recent, neverTried, delivered] = ids as [number, number, number, number];
    const now = Date.now();
    await setDeliveries(team.id, [lost], { attempts: 1, nextRetryAt: new Date(now - 10 * MIN) });
    await setDeliveries(team.id, [recent], { attempts: 1, nextRetryAt: new Date(now - 1 * MIN) });
    await setDeliveries(team.id, [neverTried], { updatedAt: new Date(now - 10 * MIN) });
    await setDeliveries(team.id, [delivered], { status: "delivered", updatedAt: new Date(now - 10 * MIN) });
    const sent = spyResends();
    vi.useFakeTimers({ toFake: ["Date"], now });
    expect(await runDurableObjectAlarm(teamLogOf(team.id)), "an alarm was set by the fan-out").toBe(true);
    const swept = sent().map((m) => m.delivery_id);
    expect(swept).toEqual(expect.arrayContaining([lost, neverTried]));
    expect(swept).not.toContain(recent);
    expect(swept).not.toContain(delivered);
    expect(
      sent().every((m) => m.kind === "deliver" && m.team_id === team.id && m.endpoint_id === hook.id),
      "the new message shape",
    ).toBe(true);
    const row = await deliveryOf(team.id, lost);
    expect(Math.abs(row!.nextRetryAt!.getTime() - Date.now())).toBeLessThan(MIN);
    // The next alarm comes when `recent` is 5 minutes past due.
    expect(await alarmOf(team.id)).toBe(now - 1 * MIN + 5 * MIN);

    const before = sent().length;
    await runDurableObjectAlarm(teamLogOf(team.id));
    expect(
      sent()
        .slice(before)
        .map((m) => m.delivery_id),
      "not swept again while its new message is on the way",
    ).not.toContain(lost);
  });

  it("lets the real queue carry a re-sent delivery to the receiver", async () => {
    const { svc, team } = await setup();
    const ev = await insertEvent(svc, team.id, "alert.created");
    const [id] = (await fanOutEvent(svc, ev.id)).created;
    await setDeliveries(team.id, [id!], { updatedAt: new Date(Date.now() - 10 * MIN) });
    await runDurableObjectAlarm(teamLogOf(team.id));
    await vi.waitFor(async () => expect((await deliveryOf(team.id, id!))?.status).toBe("delivered"), { timeout: 10_000, interval: 100 });
    expect(r.received.filter((x) => x.headers["webhook-id"] === ev.id)).toHaveLength(1);
  });
});

describe("retention (the team log's alarm, daily at about 03:40 UTC)", () => {
  it("deletes deliveries older than 30 days and events left without deliveries; an emptied log keeps no alarm", async () => {
    const { svc, team } = await setup();
    const oldEv = await insertEvent(svc, team.id, "alert.created");
    const keptEv = await insertEvent(svc, team.id, "alert.created");
    const [oldD] = (await fanOutEvent(svc, oldEv.id)).created;
    const [keptD] = (await fanOutEvent(svc, keptEv.id)).created;

    // The purge runs at the first alarm after 03:40 UTC; the clock is pinned there.
    const purgeAt = await runInDurableObject(teamLogOf(team.id), (_i, state) => state.storage.kv.get<number>("purge_at"));
    expect(new Date(purgeAt!).toISOString()).toMatch(/T03:40:00\.000Z$/);
    const now = purgeAt! + MIN;
    await setDeliveries(team.id, [oldD!, keptD!], { status: "delivered" });
    await setDeliveries(team.id, [oldD!], { createdAt: new Date(now - 31 * DAY) });
    await setDeliveries(team.id, [keptD!], { createdAt: new Date(now - 29 * DAY) });
    await teamSql(team.id, "UPDATE events SET created_at = ? WHERE id IN (?, ?)", now - 31 * DAY, oldEv.id, keptEv.id);
    // An event that no endpoint took (the log keeps every fanned-out event): purged with the others of its age.
    const bare = `evt_bare_${team.id}`;
    await teamSql(team.id, "INSERT INTO events (id, domain_id, type, payload, created_at) VALUES (?, NULL, 'alert.created', '{}', ?)", bare, now - 31 * DAY);

    vi.useFakeTimers({ toFake: ["Date"], now });
    await runDurableObjectAlarm(teamLogOf(team.id));
    expect((await deliveriesOf(team.id)).map((d) => d.id)).toEqual([keptD]);
    expect((await logEventsOf(team.id)).map((e) => e.id).sort(), "kept: the event that still has a delivery").toEqual([keptEv.id]);
    // The next purge is a day later.
    expect(await alarmOf(team.id)).toBe(purgeAt! + DAY);

    // A day later the last delivery is 30 days old too: the log is empty and keeps no alarm.
    vi.setSystemTime(purgeAt! + 2 * DAY);
    await runDurableObjectAlarm(teamLogOf(team.id));
    expect(await deliveriesOf(team.id)).toEqual([]);
    expect(await logEventsOf(team.id)).toEqual([]);
    expect(await alarmOf(team.id)).toBeNull();
  });
});
