import { createExecutionContext, createScheduledController } from "cloudflare:test";
import { teamContext } from "../support/context";
import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DAILY, handleScheduled } from "../../src/cron";
import { deliveries, events } from "../../src/db/schema";
import { createServices } from "../../src/services";
import { createEndpoint } from "../../src/services/webhooks/create-endpoint";
import { fanOutEvent } from "../../src/services/webhooks/fanout";
import { purgeDeliveries, sweepOutbox, sweepRetries } from "../../src/services/webhooks/sweeps";
import { makeTeam } from "../support/api";
import { fakeQueue, insertEvent, installReceiver, testServices } from "../support/webhooks";

const MIN = 60_000;
const DAY = 86_400_000;
let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(() => r.stub.restore());

const db = () => createServices(env).db;

async function setup() {
  const q = fakeQueue();
  const svc = testServices(q);
  const team = await makeTeam();
  const hook = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
  return { q, svc, team, hook };
}

const sentFanouts = (q: ReturnType<typeof fakeQueue>) => q.sent.map((m) => (m.body as { event_id?: string }).event_id).filter(Boolean);
const sentDelivers = (q: ReturnType<typeof fakeQueue>) => q.sent.map((m) => (m.body as { delivery_id?: number }).delivery_id).filter(Boolean);

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

describe("retry sweep (every minute)", () => {
  it("re-enqueues pending deliveries well past due or never attempted, and marks them due now", async () => {
    const { q, svc, team } = await setup();
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(...(await fanOutEvent(svc, (await insertEvent(svc, team.id, "alert.created")).id)).created);
    const [lost, recent, neverTried, delivered] = ids as [number, number, number, number];
    const now = Date.now();
    await db()
      .update(deliveries)
      .set({ attempts: 1, nextRetryAt: new Date(now - 10 * MIN) })
      .where(eq(deliveries.id, lost));
    await db()
      .update(deliveries)
      .set({ attempts: 1, nextRetryAt: new Date(now - 1 * MIN) })
      .where(eq(deliveries.id, recent));
    await db()
      .update(deliveries)
      .set({ updatedAt: new Date(now - 10 * MIN) })
      .where(eq(deliveries.id, neverTried));
    await db()
      .update(deliveries)
      .set({ status: "delivered", updatedAt: new Date(now - 10 * MIN) })
      .where(eq(deliveries.id, delivered));
    q.sent.length = 0;
    await sweepRetries(svc);
    const swept = sentDelivers(q);
    expect(swept).toEqual(expect.arrayContaining([lost, neverTried]));
    expect(swept).not.toContain(recent);
    expect(swept).not.toContain(delivered);
    const row = await db().query.deliveries.findFirst({ where: eq(deliveries.id, lost) });
    expect(Math.abs(row!.nextRetryAt!.getTime() - Date.now())).toBeLessThan(MIN);

    q.sent.length = 0;
    await sweepRetries(svc);
    expect(sentDelivers(q), "not swept again while its new message is on the way").not.toContain(lost);
  });
});

describe("retention (daily)", () => {
  it("deletes deliveries older than 30 days and fanned-out events left without deliveries", async () => {
    const { svc, team } = await setup();
    const oldEv = await insertEvent(svc, team.id, "alert.created");
    const keptEv = await insertEvent(svc, team.id, "alert.created");
    const bareEv = await insertEvent(svc, team.id, "alert.created");
    const [oldD] = (await fanOutEvent(svc, oldEv.id)).created;
    const [keptD] = (await fanOutEvent(svc, keptEv.id)).created;
    const unfanned = await insertEvent(svc, team.id, "alert.created");
    const old = new Date(Date.now() - 31 * DAY);
    await db().update(deliveries).set({ createdAt: old }).where(eq(deliveries.id, oldD!));
    await db()
      .update(deliveries)
      .set({ createdAt: new Date(Date.now() - 29 * DAY) })
      .where(eq(deliveries.id, keptD!));
    await db()
      .update(events)
      .set({ createdAt: old, fannedOutAt: old })
      .where(inArray(events.id, [oldEv.id, keptEv.id, bareEv.id]));
    await db().update(events).set({ createdAt: old }).where(eq(events.id, unfanned.id));

    const out = await purgeDeliveries(svc);
    expect(out.deliveries).toBeGreaterThanOrEqual(1);
    const leftD = (
      await db()
        .select({ id: deliveries.id })
        .from(deliveries)
        .where(inArray(deliveries.id, [oldD!, keptD!]))
    ).map((x) => x.id);
    expect(leftD).toEqual([keptD]);
    const leftE = (
      await db()
        .select({ id: events.id })
        .from(events)
        .where(inArray(events.id, [oldEv.id, keptEv.id, bareEv.id, unfanned.id]))
    ).map((x) => x.id);
    expect(leftE.sort()).toEqual([keptEv.id, unfanned.id].sort());
  });

  it("runs from the daily cron trigger", async () => {
    const { svc, team } = await setup();
    const ev = await insertEvent(svc, team.id, "alert.created");
    const [id] = (await fanOutEvent(svc, ev.id)).created;
    await db()
      .update(deliveries)
      .set({ createdAt: new Date(Date.now() - 40 * DAY) })
      .where(eq(deliveries.id, id!));
    await handleScheduled(createScheduledController({ cron: DAILY, scheduledTime: Date.now() }), env, createExecutionContext());
    expect(await db().query.deliveries.findFirst({ where: eq(deliveries.id, id!) })).toBeUndefined();
  });
});
