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
import { deliveriesOf, deliveryOf, fakeBatch, fakeQueue, insertEvent, installReceiver } from "../support/webhooks";

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

type Crash = "object-before" | "object-after" | "d1-before" | "d1-after";

/** The TEAM_WEBHOOKS binding with the first call of `method` failing: "before" throws instead of calling
 *  the object, "after" lets the object commit and then throws, as a worker dying before it heard back. */
function failingTeamLogs(ns: Env["TEAM_WEBHOOKS"], method: string, when: "before" | "after") {
  const state = { injected: false };
  const wrapped = new Proxy(ns, {
    get(target, prop) {
      if (prop !== "getByName") return Reflect.get(target, prop, target);
      return (name: string) => {
        const stub = target.getByName(name);
        return new Proxy(stub, {
          get(s, p) {
            const v = Reflect.get(s, p);
            if (p !== method || state.injected) return v;
            return async (...args: unknown[]) => {
              state.injected = true;
              // RPC stubs answer any property, so the method is called through the stub, not Function.apply.
              if (when === "after") await (s as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[p as string]?.(...args);
              throw new Error(`injected ${method} failure (${when})`);
            };
          },
        });
      };
    },
  });
  return { ns: wrapped as Env["TEAM_WEBHOOKS"], state };
}

/** The DB binding with its first statement matching `sql` failing ("before": not run; "after": run, then throws). */
function failingStatement(db: D1Database, match: RegExp, when: "before" | "after") {
  const state = { injected: false };
  const wrapped = new Proxy(db, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop !== "prepare") return typeof v === "function" ? v.bind(target) : v;
      return (query: string) => {
        const stmt = target.prepare(query);
        if (state.injected || !match.test(query)) return stmt;
        const fail =
          (run: (...a: unknown[]) => Promise<unknown>) =>
          async (...a: unknown[]) => {
            state.injected = true;
            if (when === "after") await run(...a);
            throw new Error(`injected D1 failure (${when}): ${query.slice(0, 40)}`);
          };
        return new Proxy(stmt, {
          get(t, p) {
            const f = Reflect.get(t, p, t);
            if (typeof f !== "function") return f;
            if (p === "run" || p === "all" || p === "raw" || p === "first") return fail(f.bind(t));
            if (p === "bind")
              return (...b: unknown[]) => {
                const bound = f.apply(t, b);
                return new Proxy(bound, {
                  get: (bt, bp) => (["run", "all", "raw", "first"].includes(String(bp)) ? fail(Reflect.get(bt, bp, bt).bind(bt)) : Reflect.get(bt, bp, bt)),
                });
              };
            return f.bind(t);
          },
        });
      };
    },
  });
  return { db: wrapped as D1Database, state };
}

describe("deliveries consumer: fan-out that crashes between its steps, then redelivery", () => {
  it.each(["object-before", "object-after", "d1-before", "d1-after"] as Crash[])("creates one delivery per endpoint (%s)", async (crash) => {
    installReceiver();
    const svc = createServices(env);
    const team = await makeTeam();
    const a = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/a", events: ["*"] });
    const b = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/b", events: ["*"] });
    const ev = await insertEvent(svc, team.id, "alert.created");
    const when = crash.endsWith("before") ? "before" : "after";
    // The object write (its fanOut call), or the D1 delete of the outbox row that follows it.
    const o = failingTeamLogs(env.TEAM_WEBHOOKS, crash.startsWith("object") ? "fanOut" : "none", when);
    const f = failingStatement(env.DB, crash.startsWith("d1") ? /^delete from "events"/i : /^$/, when);
    const first = fakeQueue();
    const crashed = await deliver(
      "emailauth-deliveries",
      { kind: "fanout", event_id: ev.id },
      { ...quietEnv(f.db), DELIVERIES_QUEUE: first.queue, TEAM_WEBHOOKS: o.ns },
    );
    expect(o.state.injected || f.state.injected).toBe(true);
    expect(crashed.retryMessages, "the failed fan-out is retried through the queue").toHaveLength(1);
    const q = fakeQueue();
    const again = await deliver("emailauth-deliveries", { kind: "fanout", event_id: ev.id }, { ...quietEnv(env.DB), DELIVERIES_QUEUE: q.queue }, 2);
    expect(again.retryMessages).toEqual([]);
    expect((await deliveriesOf(team.id, { eventId: ev.id })).map((d) => d.endpointId)).toEqual([a.id, b.id].sort((x, y) => x - y));
    // Messages go out after the object write and before the D1 delete. A crash before they went: the
    // redelivery queues both. After: the redelivery queues them again while the outbox row is still there
    // (a duplicate is stopped by the claim), and nothing once it is gone.
    const kinds = (fq: ReturnType<typeof fakeQueue>) => fq.sent.map((m) => (m.body as { kind: string }).kind);
    const expected = { "object-before": [0, 2], "object-after": [0, 2], "d1-before": [2, 2], "d1-after": [2, 0] }[crash];
    expect([kinds(first).length, kinds(q).length]).toEqual(expected);
    expect([...kinds(first), ...kinds(q)].every((k) => k === "deliver")).toBe(true);
    expect(await env.DB.prepare("SELECT id FROM events WHERE id = ?").bind(ev.id).first()).toBeNull();
  });
});

describe("deliveries consumer: an attempt whose outcome write fails after the POST", () => {
  it.each(["object-before", "object-after", "d1-before", "d1-after"] as Crash[])("ends delivered once, re-driven after the claim lease (%s)", async (crash) => {
    const r = installReceiver();
    const svc = createServices(env);
    const team = await makeTeam();
    const hook = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/in", events: ["*"] });
    await env.DB.prepare("UPDATE webhook_endpoints SET failure_count = 3 WHERE id = ?").bind(hook.id).run();
    const ev = await insertEvent(svc, team.id, "alert.created");
    const q = fakeQueue();
    await deliver("emailauth-deliveries", { kind: "fanout", event_id: ev.id }, { ...quietEnv(env.DB), DELIVERIES_QUEUE: q.queue });
    const deliverMsg = q.sent[0]?.body as { kind: "deliver"; team_id: number; endpoint_id: number; delivery_id: number };
    expect(deliverMsg?.kind).toBe("deliver");
    // The outcome is one transaction in the team's log (delivery and streak), then the streak's D1 copy (one batch).
    const when = crash.endsWith("before") ? "before" : "after";
    const o = failingTeamLogs(env.TEAM_WEBHOOKS, crash.startsWith("object") ? "recordOutcome" : "none", when);
    const f = failingDb(env.DB, crash.startsWith("d1") ? 1 : 0, when === "before" ? "before-commit" : "after-commit");
    const crashed = await deliver("emailauth-deliveries", deliverMsg, { ...quietEnv(f.db), TEAM_WEBHOOKS: o.ns });
    expect(o.state.injected || f.state.injected).toBe(true);
    expect(crashed.retryMessages).toHaveLength(1);
    // The queue's retry runs once the claim lease (CLAIM_LEASE_MS) has passed.
    const later = new Date(Date.now() + CLAIM_LEASE_MS + 1000);
    const clocked = createServices({ ...(env as Env), DELIVERIES_QUEUE: fakeQueue().queue }, { clock: { now: () => later } });
    const batch = fakeBatch([deliverMsg]);
    await consumeDeliveries(batch, clocked);
    const row = await deliveryOf(team.id, deliverMsg.delivery_id);
    const ep = await env.DB.prepare("SELECT failure_count, last_success_at FROM webhook_endpoints WHERE id = ?")
      .bind(hook.id)
      .first<{ failure_count: number; last_success_at: number | null }>();
    const posts = r.received.filter((x) => x.headers["webhook-id"] === ev.id);
    expect({ status: row?.status, attempts: row?.attempts }).toEqual({ status: "delivered", attempts: 1 });
    if (crash === "object-before") {
      // Nothing was recorded: the attempt is made again (same webhook-id: receivers deduplicate, D10).
      expect(posts).toHaveLength(2);
    } else {
      // The outcome was recorded before the crash: the redelivery sends nothing again, and it writes the
      // streak's D1 copy if that write was lost (D143).
      expect(posts).toHaveLength(1);
    }
    expect(ep?.failure_count).toBe(0);
    expect(ep?.last_success_at).not.toBeNull();
  });
});
