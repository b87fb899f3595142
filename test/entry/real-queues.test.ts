// End to end through the pool's REAL queues: an API call produces, the broker batches and dispatches to
// the Worker's exported queue handler, and the effect lands in D1 or at a webhook receiver (mocked at
// fetch, the only edge). Failing messages go through the broker's real retries to the real dead-letter
// queue, whose consumer logs them. Only the retry DELAY is compressed (docs/testing.md, "Real queues").
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { call, json, makeTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { addDomain, dkimRecord, zoneFor } from "../support/monitoring";
import { createWebhook, deliveriesOf, insertEvent, installReceiver, testServices } from "../support/webhooks";
import { insertDomain } from "../support/factories";

afterEach(() => vi.restoreAllMocks());

/** Polls an effect of the real consumer (the broker flushes after its batch timeout: 1 s or 5 s). */
const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 25_000, interval: 100 });

/**
 * The broker in the pool waits out each retry's delaySeconds with real timers (30 s to 300 s here), and
 * its fake-timer controls are not reachable from tests. So the exported queue handler is wrapped: every
 * retry delay the consumer asks for is recorded, then passed on as 0. Acks, retries, attempt counts,
 * max_retries and the dead-letter routing stay the broker's own.
 */
function compressRetryDelays() {
  const requested: Array<{ queue: string; attempts: number; delaySeconds: number | undefined; body: unknown }> = [];
  const acked: Array<{ queue: string; id: string; body: unknown }> = [];
  const original = worker.queue;
  const spy = vi.spyOn(worker, "queue").mockImplementation(async (batch, e, ctx) => {
    const messages = batch.messages.map((m) => ({
      get id() {
        return m.id;
      },
      get body() {
        return m.body;
      },
      get attempts() {
        return m.attempts;
      },
      get timestamp() {
        return m.timestamp;
      },
      ack: () => {
        acked.push({ queue: batch.queue, id: m.id, body: m.body });
        m.ack();
      },
      retry: (o?: QueueRetryOptions) => {
        requested.push({ queue: batch.queue, attempts: m.attempts, delaySeconds: o?.delaySeconds, body: m.body });
        m.retry({ delaySeconds: 0 });
      },
    }));
    const wrapped = {
      queue: batch.queue,
      messages,
      metadata: (batch as { metadata?: unknown }).metadata,
      ackAll: () => batch.ackAll(),
      retryAll: () => batch.retryAll({ delaySeconds: 0 }),
    } as unknown as MessageBatch<unknown>;
    return original.call(worker, wrapped, e, ctx);
  });
  return { requested, acked, spy };
}

/** Dead-letter consumers log one JSON line per message (src/queues): collected here. */
function deadLetterLog() {
  const lines: Array<Record<string, unknown>> = [];
  const original = console.error;
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    const [first] = args;
    if (typeof first === "string" && first.includes("dead-lettered")) lines.push(JSON.parse(first) as Record<string, unknown>);
    else original(...args);
  });
  return lines;
}

describe("emailauth-checks through the real queue", () => {
  it("POST /domains/{id}/verify enqueues a check that the real consumer records", async () => {
    const team = await makeTeam("pro");
    const added = await addDomain(team);
    const dkim = await dkimRecord(added.name);
    installDohStub(zoneFor(added.name, { dkimRecord: dkim.record, verifyValue: added.verification.value }));
    const res = await call(`/api/v1/domains/${added.id}/verify`, { method: "POST", token: team.full });
    expect((await json<{ data: { verified: boolean } }>(res)).data.verified).toBe(true);
    await eventually(async () => {
      const row = await env.DB.prepare("SELECT status, trigger, score FROM checks WHERE domain_id = ?").bind(added.id).first();
      expect(row).toMatchObject({ status: "completed", trigger: "verify", score: expect.any(Number) });
    });
    const view = await json<{ data: { last_checked_at: string | null; dmarc_policy: string | null } }>(
      await call(`/api/v1/domains/${added.id}`, { token: team.full }),
    );
    expect(view.data.dmarc_policy).toBe("reject");
  }, 30_000);

  it("a check that fails every time is retried max_retries times, then dead-lettered and logged", async () => {
    const team = await makeTeam("pro");
    const domain = await insertDomain(team.id);
    installDohStub(zoneFor(domain.name));
    const { requested, acked } = compressRetryDelays();
    const dead = deadLetterLog();
    // D1 refuses every batch write: the check's one write can never land.
    vi.spyOn(env.DB, "batch").mockRejectedValue(new Error("D1 unavailable (test)"));
    // A full batch (max_batch_size 10) is dispatched at once instead of after max_batch_timeout.
    const ids = Array.from({ length: 10 }, (_, i) => `chk_dlq_${domain.id}_${i}`);
    await env.CHECKS_QUEUE.sendBatch(ids.map((check_id) => ({ body: { domain_id: domain.id, check_id, trigger: "manual" } })));
    // Only this test's messages count: other test files' messages may reach the same consumers.
    const ours = (body: unknown) => ids.includes((body as { check_id?: string } | null)?.check_id ?? "");
    await eventually(async () =>
      expect(
        dead
          .filter((l) => ours(l.body))
          .map((l) => (l.body as { check_id: string }).check_id)
          .sort(),
      ).toEqual([...ids].sort()),
    );
    // max_retries = 5: six attempts, each ending in a retry with the consumer's growing delay; the broker
    // moves the message to the dead-letter queue after the sixth.
    const mine = requested.filter((r) => r.queue === "emailauth-checks" && ours(r.body));
    expect(mine).toHaveLength(60);
    expect([...new Set(mine.map((r) => `${r.attempts}:${r.delaySeconds}`))].sort()).toEqual(["1:30", "2:60", "3:90", "4:120", "5:150", "6:180"]);
    // The dead-letter consumer logs each message (its first attempt on that queue) and acks it.
    for (const l of dead.filter((x) => ours(x.body))) expect(l).toMatchObject({ level: "error", msg: "check message dead-lettered", attempts: 1 });
    await eventually(async () => expect(acked.filter((a) => a.queue === "emailauth-checks-dlq" && ours(a.body))).toHaveLength(10));
    expect(
      acked.filter((a) => a.queue === "emailauth-checks" && ours(a.body)),
      "never acked on the main queue",
    ).toEqual([]);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM checks WHERE domain_id = ?").bind(domain.id).first("n")).toBe(0);
  }, 30_000);
});

describe("emailauth-deliveries through the real queue", () => {
  it("an event fans out and is delivered, signed, to the receiver by the real consumer", async () => {
    const r = installReceiver();
    const team = await makeTeam();
    const hook = await createWebhook(team.full, { events: ["*"] });
    const domain = await insertDomain(team.id);
    // The producer: a write that emits an event (domain.deleted) and nudges the outbox onto the queue.
    const del = await call(`/api/v1/domains/${domain.id}`, { method: "DELETE", token: team.full });
    expect(del.status).toBe(204);
    await eventually(async () => expect(r.received.filter((x) => x.body.includes('"domain.deleted"'))).toHaveLength(1));
    const got = r.received.find((x) => x.body.includes('"domain.deleted"'));
    if (!got) throw new Error("not received");
    const verified = new Webhook(hook.secret).verify(got.body, got.headers) as { type: string; data: { domain: { id: number } } };
    expect(verified).toMatchObject({ type: "domain.deleted", data: { domain: { id: domain.id } } });
    await eventually(async () => {
      const row = (await deliveriesOf(team.id, { endpointId: hook.id })).find((d) => d.eventType === "domain.deleted");
      expect(row).toMatchObject({ status: "delivered", attempts: 1 });
    });
  }, 30_000);

  it("a message that fails every time is retried max_retries times, then dead-lettered and logged", async () => {
    installReceiver();
    const team = await makeTeam();
    await createWebhook(team.full, { events: ["*"] });
    const svc = testServices();
    const evs = [];
    for (let i = 0; i < 25; i++) evs.push(await insertEvent(svc, team.id, "alert.created"));
    const { requested, acked } = compressRetryDelays();
    const dead = deadLetterLog();
    // D1 refuses every statement: the fan-out cannot even read its event.
    vi.spyOn(env.DB, "prepare").mockImplementation(() => {
      throw new Error("D1 unavailable (test)");
    });
    // A full batch (max_batch_size 25) is dispatched at once.
    await env.DELIVERIES_QUEUE.sendBatch(evs.map((ev) => ({ body: { kind: "fanout", event_id: ev.id } })));
    const eventIds = evs.map((e) => e.id);
    const ours = (body: unknown) => eventIds.includes((body as { event_id?: string } | null)?.event_id ?? "");
    await eventually(async () => expect(dead.filter((l) => ours(l.body))).toHaveLength(25));
    const mine = requested.filter((x) => x.queue === "emailauth-deliveries" && ours(x.body));
    expect(mine).toHaveLength(150);
    expect(new Set(mine.map((x) => x.delaySeconds))).toEqual(new Set([30]));
    expect(
      dead
        .filter((l) => ours(l.body))
        .map((l) => (l.body as { event_id: string }).event_id)
        .sort(),
    ).toEqual([...eventIds].sort());
    for (const l of dead.filter((x) => ours(x.body))) expect(l).toMatchObject({ level: "error", msg: "deliveries message dead-lettered", attempts: 1 });
    await eventually(async () => expect(acked.filter((a) => a.queue === "emailauth-deliveries-dlq" && ours(a.body))).toHaveLength(25));
    expect(
      acked.filter((a) => a.queue === "emailauth-deliveries" && ours(a.body)),
      "never acked on the main queue",
    ).toEqual([]);
  }, 30_000);
});
