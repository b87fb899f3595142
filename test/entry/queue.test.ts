// The Worker's exported queue handler, called as the runtime calls it: worker.queue(batch, env, ctx)
// with a MessageBatch from createMessageBatch, read back with getQueueResult (which messages were
// acked, which retried). The retry delay is read from a spy on each message's retry(): the pool's
// result does not carry it. Every queue in wrangler.toml, the dead-letter queues included.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { makeTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { insertDomain } from "../support/factories";
import { zoneFor } from "../support/monitoring";
import { createWebhook, deliveriesOf, deliveryOf, insertEvent, installReceiver, testServices } from "../support/webhooks";
import wranglerToml from "../../wrangler.toml?raw";

afterEach(() => vi.restoreAllMocks());

let seq = 0;
/** Runs one batch through the exported handler; returns the pool's outcome and each message's retry() spy. */
async function run(queue: string, bodies: unknown[], attempts = 1) {
  const batch = createMessageBatch(
    queue,
    bodies.map((body) => ({ id: `msg-${++seq}`, timestamp: new Date(), attempts, body })),
  );
  const retries = new Map(batch.messages.map((m) => [m.id, vi.spyOn(m, "retry")]));
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  const ids = batch.messages.map((m) => m.id);
  const delayOf = (id: string | undefined) => (retries.get(id ?? "")?.mock.calls[0]?.[0] as QueueRetryOptions | undefined)?.delaySeconds;
  return { ids, result, delayOf, retried: result.retryMessages.map((r: { msgId: string }) => r.msgId), acked: result.explicitAcks };
}

/** D1 refuses every batch write (a service outage): the one write of a check or a fan-out fails. */
const d1WritesFail = () => vi.spyOn(env.DB, "batch").mockRejectedValue(new Error("D1 unavailable (test)"));
const quietLogs = () => {
  vi.spyOn(console, "error").mockImplementation(() => undefined);
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
  return vi.spyOn(console, "log").mockImplementation(() => undefined);
};

describe("wrangler.toml and the exported queue handler agree", () => {
  it("every declared consumer queue is handled (none throws 'no consumer')", async () => {
    const queues = [...wranglerToml.matchAll(/\[\[queues\.consumers\]\]\s*\nqueue\s*=\s*"([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(queues.sort()).toEqual(["emailauth-checks", "emailauth-checks-dlq", "emailauth-deliveries", "emailauth-deliveries-dlq"]);
    quietLogs();
    for (const q of queues) {
      const { ids, acked } = await run(q, [{ malformed: true }]);
      expect(acked, `${q}: a body that can never succeed is acked`).toEqual(ids);
    }
  });

  it("a batch from an undeclared queue is refused, so the runtime retries it instead of losing it", async () => {
    const batch = createMessageBatch("emailauth-unknown", [{ id: "x", timestamp: new Date(), attempts: 1, body: {} }]);
    await expect(worker.queue(batch, env, createExecutionContext())).rejects.toThrow(/no consumer/);
  });
});

describe("emailauth-checks", () => {
  it("acks a check that ran and records it", async () => {
    const team = await makeTeam("pro");
    const d = await insertDomain(team.id);
    installDohStub(zoneFor(d.name));
    const check_id = `chk_entry_${d.id}`;
    const { ids, acked, retried } = await run("emailauth-checks", [{ domain_id: d.id, check_id, trigger: "manual" }]);
    expect(acked).toEqual(ids);
    expect(retried).toEqual([]);
    expect(await env.DB.prepare("SELECT status FROM checks WHERE id = ?").bind(check_id).first("status")).toBe("completed");
  });

  it("acks messages that can never succeed: malformed body, unknown domain, redelivered check", async () => {
    quietLogs();
    const { ids, acked, retried } = await run("emailauth-checks", [
      { domain_id: "one", check_id: 1 },
      { domain_id: 999_999_999, check_id: "chk_nodomain", trigger: "manual" },
    ]);
    expect(acked).toEqual(ids);
    expect(retried).toEqual([]);
  });

  it("retries a check that failed, each message on its own, with a delay growing per attempt and capped at 300 s", async () => {
    const team = await makeTeam("pro");
    const d = await insertDomain(team.id);
    installDohStub(zoneFor(d.name));
    quietLogs();
    d1WritesFail();
    const first = await run("emailauth-checks", [{ domain_id: d.id, check_id: `chk_f1_${d.id}`, trigger: "manual" }], 1);
    expect(first.retried).toEqual(first.ids);
    expect(first.acked).toEqual([]);
    expect(first.delayOf(first.ids[0])).toBe(30);
    const third = await run("emailauth-checks", [{ domain_id: d.id, check_id: `chk_f3_${d.id}`, trigger: "manual" }], 3);
    expect(third.delayOf(third.ids[0])).toBe(90);
    const late = await run("emailauth-checks", [{ domain_id: d.id, check_id: `chk_f9_${d.id}`, trigger: "manual" }], 20);
    expect(late.delayOf(late.ids[0])).toBe(300);
    vi.mocked(env.DB.batch).mockRestore();

    // One failing message does not hold back the others of its batch.
    const other = await insertDomain(team.id);
    const spy = vi.spyOn(env.DB, "batch");
    spy.mockRejectedValueOnce(new Error("D1 unavailable (test)"));
    const mixed = await run("emailauth-checks", [
      { domain_id: d.id, check_id: `chk_m1_${d.id}`, trigger: "manual" },
      { domain_id: other.id, check_id: `chk_m2_${other.id}`, trigger: "manual" },
    ]);
    expect(mixed.retried).toEqual([mixed.ids[0]]);
    expect(mixed.acked).toEqual([mixed.ids[1]]);
  });
});

describe("emailauth-checks-dlq", () => {
  it("logs every dead letter with its body and acks it (the domain's lease lets the cron claim it again)", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const body = { domain_id: 7, check_id: "chk_dead", trigger: "scheduled" };
    const { ids, acked, retried } = await run("emailauth-checks-dlq", [body, { not: "a check" }], 1);
    expect(acked).toEqual(ids);
    expect(retried).toEqual([]);
    const lines = errors.mock.calls.map((c) => JSON.parse(String(c[0])) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ level: "error", msg: "check message dead-lettered", id: ids[0], body }),
      expect.objectContaining({ level: "error", msg: "check message dead-lettered", id: ids[1] }),
    ]);
  });
});

describe("emailauth-deliveries", () => {
  it("acks a fan-out (delivery rows written) and a deliver (the receiver got it)", async () => {
    const r = installReceiver();
    const team = await makeTeam();
    const hook = await createWebhook(team.full, { events: ["*"] });
    const ev = await insertEvent(testServices(), team.id, "alert.created");
    const fan = await run("emailauth-deliveries", [{ kind: "fanout", event_id: ev.id }]);
    expect(fan.acked).toEqual(fan.ids);
    const [row] = await deliveriesOf(team.id, { eventId: ev.id, endpointId: hook.id });
    expect(row).toMatchObject({ status: "pending" });
    const deliver = await run("emailauth-deliveries", [{ kind: "deliver", team_id: team.id, endpoint_id: hook.id, delivery_id: row?.id }]);
    expect(deliver.acked).toEqual(deliver.ids);
    expect(r.received.filter((x) => x.headers["webhook-id"] === ev.id)).toHaveLength(1);
    expect((await deliveryOf(team.id, row?.id ?? 0))?.status).toBe("delivered");
  });

  it("acks a malformed message and retries an unexpected failure after 30 s, each message on its own", async () => {
    installReceiver();
    const team = await makeTeam();
    await createWebhook(team.full, { events: ["*"] });
    const svc = testServices();
    const failing = await insertEvent(svc, team.id, "alert.created");
    quietLogs();
    vi.spyOn(env.DB, "prepare").mockImplementationOnce(() => {
      throw new Error("D1 unavailable (test)");
    });
    const out = await run("emailauth-deliveries", [{ kind: "fanout", event_id: failing.id }, { kind: "nonsense" }]);
    expect(out.retried).toEqual([out.ids[0]]);
    expect(out.delayOf(out.ids[0])).toBe(30);
    expect(out.acked).toEqual([out.ids[1]]);
  });
});

describe("emailauth-deliveries: a deliver message of the release before the team logs", () => {
  it("is parsed, logged and acked without sending (the mover brings its delivery, the team's alarm sends it)", async () => {
    const r = installReceiver();
    const warns = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const out = await run("emailauth-deliveries", [{ kind: "deliver", delivery_id: 987_654 }]);
    expect(out.acked).toEqual(out.ids);
    expect(out.retried).toEqual([]);
    expect(r.received).toEqual([]);
    expect(warns.mock.calls.map((c) => JSON.parse(String(c[0])))).toContainEqual(
      expect.objectContaining({ level: "warn", msg: expect.stringContaining("legacy deliver message acked"), delivery_id: 987_654 }),
    );
  });
});

describe("emailauth-deliveries-dlq", () => {
  it("logs every dead letter and acks it (the outbox and retry sweeps re-drive the work from D1)", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const body = { kind: "deliver", delivery_id: 42 };
    const { ids, acked, retried } = await run("emailauth-deliveries-dlq", [body], 1);
    expect(acked).toEqual(ids);
    expect(retried).toEqual([]);
    expect(JSON.parse(String(errors.mock.calls[0]?.[0]))).toMatchObject({ level: "error", msg: "deliveries message dead-lettered", id: ids[0], body });
  });
});
