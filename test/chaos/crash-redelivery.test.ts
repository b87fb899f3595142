// Crash in the middle (npm run test:chaos): a queue consumer whose D1 batch fails, before or after it
// commits, is redelivered and completes its work exactly once. Runs in the Workers pool because
// wrangler dev offers no way to fail a D1 batch without test hooks in src: the failure is injected by
// wrapping the DB binding handed to the real queue export (src/index.ts), which builds its services
// from that env as in production.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { Env } from "../../src/env";
import { createServices } from "../../src/services";
import { createEndpoint } from "../../src/services/webhooks/create-endpoint";
import { makeTeam } from "../support/api";
import { teamContext } from "../support/context";
import { installDohStub, restoreDohStubs } from "../support/doh-stub";
import { addDomain, dkimRecord, diffsOf, alertsOf, eventsOf, markVerified, newDomainName, zoneFor } from "../support/monitoring";
import { consumeDeliveries } from "../../src/queues/deliveries";
import { CLAIM_LEASE_MS } from "../../src/services/webhooks/deliver";
import { sweepRetries } from "../../src/services/webhooks/sweeps";
import { fakeBatch, fakeQueue, insertEvent, installReceiver } from "../support/webhooks";

afterEach(() => restoreDohStubs());

type Mode = "before-commit" | "after-commit";

/** The DB binding with its Nth batch failing: "before-commit" throws instead of running it (D1 rolls a
 *  failed batch back), "after-commit" runs it and then throws, as a worker dying before its ack. */
function failingDb(db: D1Database, failOn: number, mode: Mode) {
  const state = { batches: 0, injected: false };
  const wrapped = new Proxy(db, {
    get(target, prop) {
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          state.batches++;
          if (state.batches !== failOn) return target.batch(statements);
          state.injected = true;
          if (mode === "after-commit") await target.batch(statements);
          throw new Error(`injected D1 batch failure (${mode}, batch ${failOn})`);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { db: wrapped, state };
}

/** Delivers one message through the real queue export; returns what the consumer did with it. */
async function deliver(queue: string, body: unknown, e: Env, attempts = 1) {
  const batch = createMessageBatch(queue, [{ id: `m-${attempts}-${crypto.randomUUID()}`, timestamp: new Date(), attempts, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, e, ctx);
  return getQueueResult(batch, ctx);
}

/** A comparable picture of everything a check wrote for one domain. */
async function picture(domainId: number) {
  const checks = await env.DB.prepare("SELECT status, stale_parts FROM checks WHERE domain_id = ? ORDER BY created_at").bind(domainId).all();
  const diffs = (await diffsOf(domainId)).map((d) => `${d.category}.${d.field}`).sort();
  const events = (await eventsOf(domainId)).map((e) => e.type).sort();
  const alerts = (await alertsOf(domainId)).map((a) => `${a.subject}×${a.occurrences}`).sort();
  return { checks: checks.results.length, diffs, events, alerts };
}

/** A verified domain with one completed check, whose DMARC policy has since been weakened. */
async function domainWithChange() {
  const team = await makeTeam();
  const name = newDomainName();
  const added = await addDomain(team, name);
  await markVerified(added.id);
  const dkim = await dkimRecord(name);
  const stub = installDohStub(zoneFor(name, { dkimRecord: dkim.record }));
  const first = await deliver("emailauth-checks", { domain_id: added.id, check_id: `chk_a_${added.id}`, trigger: "manual" }, quietEnv(env.DB));
  expect(first.explicitAcks).toHaveLength(1);
  stub.restore();
  installDohStub(zoneFor(name, { dkimRecord: dkim.record, dmarc: "v=DMARC1; p=none; rua=mailto:dmarc@example.org" }));
  return { id: added.id, message: { domain_id: added.id, check_id: `chk_b_${added.id}`, trigger: "manual" as const } };
}

/** The env with recording queues, so follow-up messages do not run in the background. */
function quietEnv(db: D1Database): Env {
  return { ...(env as Env), DB: db, CHECKS_QUEUE: fakeQueue().queue, DELIVERIES_QUEUE: fakeQueue().queue };
}

describe("checks consumer: a failing D1 batch, then redelivery", () => {
  it("records the check, its diffs, events and alerts exactly once, whichever batch fails and however", async () => {
    // The reference: the same change checked without any failure.
    const twin = await domainWithChange();
    const counter = failingDb(env.DB, 0, "before-commit");
    expect((await deliver("emailauth-checks", twin.message, quietEnv(counter.db))).explicitAcks).toHaveLength(1);
    const expected = await picture(twin.id);
    expect(expected.diffs.length, "the change is seen").toBeGreaterThan(0);
    expect(counter.state.batches, "the check writes in at least one batch").toBeGreaterThan(0);

    for (const mode of ["before-commit", "after-commit"] as const) {
      for (let n = 1; n <= counter.state.batches; n++) {
        const victim = await domainWithChange();
        const f = failingDb(env.DB, n, mode);
        const crashed = await deliver("emailauth-checks", victim.message, quietEnv(f.db));
        expect(f.state.injected, `${mode} batch ${n} injected`).toBe(true);
        expect(crashed.retryMessages.length + crashed.explicitAcks.length, `${mode} batch ${n}: the message is settled`).toBe(1);
        // Redelivered (by the queue's retry, or by the next tick re-queuing the domain after an ack).
        const again = await deliver("emailauth-checks", victim.message, quietEnv(env.DB), 2);
        expect(again.retryMessages, `${mode} batch ${n}: the redelivery completes`).toEqual([]);
        expect(await picture(victim.id), `${mode} batch ${n}: exactly once`).toEqual(expected);
      }
    }
  });
});

describe("deliveries consumer: fan-out whose batch fails, then redelivery", () => {
  it.each(["before-commit", "after-commit"] as const)("creates one delivery per endpoint (%s)", async (mode) => {
    installReceiver();
    const svc = createServices(env);
    const team = await makeTeam();
    const a = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/a", events: ["*"] });
    const b = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/b", events: ["*"] });
    const ev = await insertEvent(svc, team.id, "alert.created");
    const f = failingDb(env.DB, 1, mode);
    const crashed = await deliver("emailauth-deliveries", { kind: "fanout", event_id: ev.id }, quietEnv(f.db));
    expect(f.state.injected).toBe(true);
    expect(crashed.retryMessages, "the failed fan-out is retried through the queue").toHaveLength(1);
    const q = fakeQueue();
    const again = await deliver("emailauth-deliveries", { kind: "fanout", event_id: ev.id }, { ...quietEnv(env.DB), DELIVERIES_QUEUE: q.queue }, 2);
    expect(again.retryMessages).toEqual([]);
    const rows = await env.DB.prepare("SELECT endpoint_id FROM deliveries WHERE event_id = ? ORDER BY endpoint_id").bind(ev.id).all<{ endpoint_id: number }>();
    expect(rows.results.map((r) => r.endpoint_id)).toEqual([a.id, b.id].sort((x, y) => x - y));
    if (mode === "before-commit") {
      // Nothing was committed the first time: the redelivered fan-out writes and queues both.
      expect(q.sent.map((m) => (m.body as { kind: string }).kind)).toEqual(["deliver", "deliver"]);
    }
  });
});

describe("deliveries consumer: an attempt whose outcome batch fails after the POST", () => {
  it.each(["before-commit", "after-commit"] as const)("ends delivered once, re-driven after the claim lease (%s)", async (mode) => {
    const r = installReceiver();
    const svc = createServices(env);
    const team = await makeTeam();
    const hook = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
    const ev = await insertEvent(svc, team.id, "alert.created");
    const q = fakeQueue();
    await deliver("emailauth-deliveries", { kind: "fanout", event_id: ev.id }, { ...quietEnv(env.DB), DELIVERIES_QUEUE: q.queue });
    const deliverMsg = q.sent[0]?.body as { kind: "deliver"; delivery_id: number };
    expect(deliverMsg?.kind).toBe("deliver");
    // The claim is a single statement; the outcome (delivery row and endpoint counters) is the batch.
    const f = failingDb(env.DB, 1, mode);
    const crashed = await deliver("emailauth-deliveries", deliverMsg, quietEnv(f.db));
    expect(f.state.injected).toBe(true);
    expect(crashed.retryMessages).toHaveLength(1);
    // The queue's retry and the retry sweep run once the claim lease (CLAIM_LEASE_MS) has passed.
    const later = new Date(Date.now() + CLAIM_LEASE_MS + 1000);
    const clocked = createServices({ ...(env as Env), DELIVERIES_QUEUE: fakeQueue().queue }, { clock: { now: () => later } });
    const sq = fakeQueue();
    await sweepRetries(createServices({ ...(env as Env), DELIVERIES_QUEUE: sq.queue }, { clock: { now: () => later } }));
    const redelivered = [deliverMsg, ...sq.sent.map((m) => m.body)];
    const batch = fakeBatch(redelivered);
    await consumeDeliveries(batch, clocked);
    const row = await env.DB.prepare("SELECT status, attempts FROM deliveries WHERE id = ?")
      .bind(deliverMsg.delivery_id)
      .first<{ status: string; attempts: number }>();
    const ep = await env.DB.prepare("SELECT failure_count FROM webhook_endpoints WHERE id = ?").bind(hook.id).first<{ failure_count: number }>();
    const posts = r.received.filter((x) => x.headers["webhook-id"] === ev.id);
    if (mode === "before-commit") {
      // Nothing was recorded: the attempt is made again (same webhook-id: receivers deduplicate, D10).
      expect(row).toEqual({ status: "delivered", attempts: 1 });
      expect(posts).toHaveLength(2);
    } else {
      // The outcome was recorded before the crash: the redelivery and the sweep send nothing again.
      expect(row).toEqual({ status: "delivered", attempts: 1 });
      expect(posts).toHaveLength(1);
    }
    expect(ep?.failure_count).toBe(0);
  });
});
