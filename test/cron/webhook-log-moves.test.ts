// The webhook log mover (docs/decisions.md D145): deliveries that migration 0010 left in D1
// (legacy_deliveries) move into their team's log object with their ids, states and their event's body,
// through the every-minute cron; a re-run adds nothing; a pending one, whose deliver message of the old
// shape was acked, is sent by the team object's alarm; new ids stay above every legacy id; the table and
// the old fanned-out events go; GET /admin/report-moves follows it. The legacy table is seeded with plain
// SQL (no code writes it any more). The last test drops it.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { consumeDeliveries } from "../../src/queues/deliveries";
import { createServices } from "../../src/services";
import { EVERY_MINUTE } from "../../src/cron";
import { createEndpoint } from "../../src/services/webhooks/create-endpoint";
import { fanOutEvent } from "../../src/services/webhooks/fanout";
import { moveDeliveryBatch, moveLegacyDeliveries } from "../../src/services/report-moves/webhooks";
import { ADMIN_TOKEN, call, json, makeTeam } from "../support/api";
import { teamContext } from "../support/context";
import { deliveriesOf, deliveryOf, fakeBatch, fakeQueue, insertEvent, installReceiver, teamLogOf, testServices } from "../support/webhooks";

afterEach(() => vi.restoreAllMocks());

const MIN = 60_000;
let nextId = 700_000;

interface Legacy {
  id: number;
  eventId: string;
  status: "pending" | "delivered" | "failed";
}

/** One fanned-out event in D1 and its legacy delivery to `endpointId`, as the old release stored them. */
async function seedLegacy(
  teamId: number,
  endpointId: number,
  status: Legacy["status"],
  o: { id?: number; at?: number; retryAt?: number } = {},
): Promise<Legacy> {
  const id = o.id ?? ++nextId;
  const at = o.at ?? Date.now() - 20 * MIN;
  const eventId = `evt_legacy_${id}`;
  const payload = JSON.stringify({
    id: eventId,
    type: "alert.created",
    api_version: "2026-10-10",
    timestamp: new Date(at).toISOString(),
    data: { note: `legacy ${id}` },
  });
  const statements = [
    env.DB.prepare(
      "INSERT OR IGNORE INTO events (id, team_id, domain_id, type, payload, created_at, fanned_out_at) VALUES (?, ?, NULL, 'alert.created', ?, ?, ?)",
    ).bind(eventId, teamId, payload, at, at),
    env.DB.prepare(
      `INSERT INTO legacy_deliveries (id, endpoint_id, event_id, team_id, event_type, status, attempts, response_status, response_body, response_headers,
         error, duration_ms, next_retry_at, leased_until, delivered_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'alert.created', ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
    ).bind(
      id,
      endpointId,
      eventId,
      teamId,
      status,
      status === "pending" ? 1 : 1,
      status === "delivered" ? 200 : 500,
      status === "delivered" ? "thanks" : "boom",
      JSON.stringify({ "content-type": "text/plain" }),
      status === "delivered" ? null : status === "failed" ? "receiver answered 500; all 1 attempts spent" : "receiver answered 500",
      42,
      status === "pending" ? (o.retryAt ?? at + MIN) : null,
      status === "delivered" ? at : null,
      at,
      at,
    ),
  ];
  await env.DB.batch(statements);
  return { id, eventId, status };
}

async function fireEveryMinute() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: EVERY_MINUTE, scheduledTime: Date.now() }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const legacyLeft = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM legacy_deliveries").first<{ n: number }>())?.n;
const progress = async () =>
  (
    await json<{ data: { tables: Array<{ name: string; rows: number | null }>; webhooks_done: boolean } }>(
      await call("/admin/report-moves", { token: ADMIN_TOKEN }),
    )
  ).data;

describe("moving legacy_deliveries into the team logs", () => {
  it("keeps ids, states, responses and payloads; a re-run adds nothing; pending ones are sent by the alarm; new ids stay above", async () => {
    const r = installReceiver();
    const svc = testServices(fakeQueue());
    const team = await makeTeam();
    const hook = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
    const at = Date.now() - 20 * MIN;
    const retryAt = Date.now() + 10 * MIN;
    const seeded = [
      await seedLegacy(team.id, hook.id, "delivered", { at }),
      await seedLegacy(team.id, hook.id, "failed", { at }),
      // Its next attempt was scheduled by the old release 10 minutes from now.
      await seedLegacy(team.id, hook.id, "pending", { at, retryAt }),
      await seedLegacy(team.id, hook.id, "delivered", { at }),
    ];
    const [delivered, failed, pending, highest] = seeded as [Legacy, Legacy, Legacy, Legacy];
    // An event the old release fanned out that no endpoint took, and one not fanned out yet (the outbox).
    await env.DB.prepare(
      "INSERT INTO events (id, team_id, domain_id, type, payload, created_at, fanned_out_at) VALUES (?, ?, NULL, 'alert.created', '{}', ?, ?)",
    )
      .bind(`evt_bare_${team.id}`, team.id, at, at)
      .run();
    const outbox = await insertEvent(svc, team.id, "alert.created");

    // The old release's deliver message for the pending one: acked, nothing sent.
    const batch = createMessageBatch("emailauth-deliveries", [
      { id: "old-1", timestamp: new Date(), attempts: 1, body: { kind: "deliver", delivery_id: pending.id } },
    ]);
    const ctx = createExecutionContext();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["old-1"]);
    expect(r.received).toEqual([]);

    // Another team, with no legacy delivery of its own: while the table exists, its new ids stay above it.
    const other = await makeTeam();
    await createEndpoint(svc, teamContext(other.id), "enterprise", { url: "https://hooks.example.com/other", events: ["*"] });
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 2 * MIN }); // past any floor an isolate cached earlier
    const [fresh] = (await fanOutEvent(svc, (await insertEvent(svc, other.id, "alert.created")).id)).created;
    expect(fresh).toBeGreaterThan(highest.id);
    vi.useRealTimers();

    const before = await progress();
    expect(before.tables).toContainEqual({ name: "legacy_deliveries", rows: 4 });
    expect(before.webhooks_done).toBe(false);

    // One batch moves the endpoint's four; then a crash before the D1 delete is replayed by putting the
    // same rows back: the cron's run adds nothing to the object and deletes them.
    expect(await moveDeliveryBatch(svc)).toBe(4);
    expect(await legacyLeft()).toBe(0);
    for (const l of seeded) await seedLegacy(team.id, hook.id, l.status, { id: l.id, at, retryAt });
    // Another team's endpoint with more deliveries than one statement may bind ids (D1: 100 parameters).
    const bulk = await makeTeam();
    const bulkHook = await createEndpoint(svc, teamContext(bulk.id), "enterprise", { url: "https://hooks.example.com/bulk", events: ["*"] });
    const bulkIds: number[] = [];
    for (let i = 0; i < 150; i++) bulkIds.push((await seedLegacy(bulk.id, bulkHook.id, "delivered", { at })).id);
    await fireEveryMinute();
    expect((await deliveriesOf(bulk.id)).map((d) => d.id)).toEqual(bulkIds);
    expect(await env.DB.prepare("SELECT name FROM sqlite_master WHERE name = 'legacy_deliveries'").first(), "dropped once empty").toBeNull();

    const moved = await deliveriesOf(team.id);
    expect(moved.map((d) => [d.id, d.status, d.attempts])).toEqual([
      [delivered.id, "delivered", 1],
      [failed.id, "failed", 1],
      [pending.id, "pending", 1],
      [highest.id, "delivered", 1],
    ]);
    // The API shows them as before: the event's body and the stored response.
    const detail = await json<{ data: Record<string, unknown> }>(await call(`/api/v1/webhooks/${hook.id}/deliveries/${delivered.id}`, { token: team.full }));
    expect(detail.data).toMatchObject({
      id: delivered.id,
      event_id: delivered.eventId,
      status: "delivered",
      attempts: 1,
      duration_ms: 42,
      response: { status: 200, body: "thanks", headers: { "content-type": "text/plain" } },
      payload: { id: delivered.eventId, type: "alert.created", data: { note: `legacy ${delivered.id}` } },
    });
    const failedView = await json<{ data: Record<string, unknown> }>(await call(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}`, { token: team.full }));
    expect(failedView.data).toMatchObject({ status: "failed", error: "receiver answered 500; all 1 attempts spent", response: { status: 500, body: "boom" } });

    // D1 keeps only the outbox: the fanned-out events are gone, the one not fanned out yet stays.
    expect(
      await env.DB.prepare("SELECT id FROM events WHERE team_id = ? ORDER BY id")
        .bind(team.id)
        .all()
        .then((x) => x.results),
    ).toEqual([{ id: outbox.id }]);
    expect(await progress()).toMatchObject({ webhooks_done: true });
    expect((await progress()).tables).toContainEqual({ name: "legacy_deliveries", rows: null });

    // The pending one keeps its schedule: 5 minutes past it, the team's alarm re-sends it in the new shape.
    expect(await runInDurableObject(teamLogOf(team.id), (_i, state) => state.storage.getAlarm())).toBe(retryAt + 5 * MIN);
    const sends = vi.spyOn(env.DELIVERIES_QUEUE, "sendBatch").mockResolvedValue(undefined as never);
    vi.useFakeTimers({ toFake: ["Date"], now: retryAt + 5 * MIN });
    await runDurableObjectAlarm(teamLogOf(team.id));
    const resent = sends.mock.calls.flatMap(([msgs]) => [...msgs].map((m) => m.body));
    expect(resent).toEqual([{ kind: "deliver", team_id: team.id, endpoint_id: hook.id, delivery_id: pending.id }]);
    vi.useRealTimers();
    sends.mockRestore();
    // Its message, through the consumer, sends it under its own id (its second attempt).
    await consumeDeliveries(fakeBatch(resent), createServices(env, { clock: { now: () => new Date(retryAt + 5 * MIN) } }));
    const sent = r.received.filter((x) => x.headers["webhook-id"] === pending.eventId);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers["x-service-delivery"]).toBe(`${pending.id}/2`);
    expect((await deliveryOf(team.id, pending.id))?.status).toBe("delivered");

    // A new delivery of the moved team comes after every moved id.
    const [next] = (await fanOutEvent(svc, outbox.id)).created;
    expect(next).toBeGreaterThan(highest.id);
    // A tick with nothing left is a no-op.
    expect(await moveLegacyDeliveries(svc)).toEqual({ batches: 0, deliveries: 0, events: 0, dropped: false, more: false });
  });
});
