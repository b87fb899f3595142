// The check outbox (docs/decisions.md D134-D136): a check recorded through the real queue export lands in
// the domain's object with its posture and diffs, while D1 keeps only a slim guard row for 20 minutes; a
// copy that failed after the check heals through a view or the every-minute cron; the history D1 kept
// before is moved by that cron; a second run of a check id is refused by the guard row, then by the object.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import type { Env } from "../../src/env";
import { runCheck } from "../../src/services/checks/run-check";
import { GUARD_MS } from "../../src/services/checks/archive";
import { call, json, makeTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { addDomain, checksOf, clockedServices, diffsOf, eventsOf, markVerified, newDomainName, zoneFor } from "../support/monitoring";

afterEach(() => vi.restoreAllMocks());

const quiet = () => {
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
  vi.spyOn(console, "log").mockImplementation(() => undefined);
};

/** One check message through the exported queue handler, with the given env. */
async function runThroughQueue(e: Env, body: { domain_id: number; check_id: string; trigger: "manual" | "scheduled" }) {
  const batch = createMessageBatch("emailauth-checks", [{ id: `m-${body.check_id}`, timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, e, ctx);
  return getQueueResult(batch, ctx);
}

async function tick(at = Date.now()) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: at }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** The env with the domain objects' storeChecks failing, as a lost RPC after the D1 batch committed would. */
function storeCopyFails(): Env {
  const namespace = new Proxy(env.DOMAIN_STORE, {
    get(target, prop) {
      if (prop !== "getByName") return Reflect.get(target, prop, target);
      return (name: string) =>
        new Proxy(target.getByName(name), {
          get(stub, p) {
            if (p === "storeChecks") return () => Promise.reject(new Error("object unreachable (test)"));
            if (p === "then") return undefined;
            // Every other property of an RPC stub is a remote method: call it on the stub itself.
            return (...args: unknown[]) => (stub as unknown as Record<string, (...a: unknown[]) => unknown>)[p as string]?.(...args);
          },
        });
    },
  });
  return { ...env, DOMAIN_STORE: namespace } as Env;
}

const d1Row = (id: string) =>
  env.DB.prepare("SELECT posture IS NOT NULL AS has_posture, archived_at FROM checks WHERE id = ?")
    .bind(id)
    .first<{ has_posture: number; archived_at: number | null }>();
const d1Diffs = (domainId: number) => env.DB.prepare("SELECT COUNT(*) AS n FROM diffs WHERE domain_id = ?").bind(domainId).first<number>("n");

async function verifiedDomain(spf?: string) {
  const team = await makeTeam();
  const name = newDomainName();
  const added = await addDomain(team, name);
  await markVerified(added.id);
  const stub = installDohStub(zoneFor(name, spf ? { spf } : {}));
  return { team, name, added, stub };
}

describe("check history in the domain's object", () => {
  it("a check through the queue export: the object holds it with its posture and diffs, D1 a slim guard row", async () => {
    const { team, name, added, stub } = await verifiedDomain();
    expect((await runThroughQueue(env, { domain_id: added.id, check_id: `chk_one_${added.id}`, trigger: "manual" })).explicitAcks).toHaveLength(1);
    // A quiet check (no diffs) is copied from the row it just wrote: the same posture, already let go in D1.
    const first = await env.DOMAIN_STORE.getByName(`domain:${added.id}`).getCheck(`chk_one_${added.id}`);
    expect(first).toMatchObject({ status: "completed", trigger: "manual", score: expect.any(Number) });
    expect(JSON.parse(first?.posture ?? "null")).toMatchObject({ records: { spf: { record: expect.stringContaining("v=spf1") } } });
    expect(await d1Row(`chk_one_${added.id}`)).toMatchObject({ has_posture: 0, archived_at: expect.any(Number) });
    stub.restore();
    installDohStub(zoneFor(name, { spf: "v=spf1 include:_spf.example.net -all" }));
    expect((await runThroughQueue(env, { domain_id: added.id, check_id: `chk_two_${added.id}`, trigger: "manual" })).explicitAcks).toHaveLength(1);

    const kept = await checksOf(added.id);
    expect(kept.map((c) => c.id)).toEqual([`chk_one_${added.id}`, `chk_two_${added.id}`]);
    const latest = await env.DOMAIN_STORE.getByName(`domain:${added.id}`).getCheck(`chk_two_${added.id}`);
    expect(JSON.parse(latest?.posture ?? "null")).toMatchObject({ records: { spf: { record: "v=spf1 include:_spf.example.net -all" } } });
    expect(await diffsOf(added.id)).toContainEqual(expect.objectContaining({ check_id: `chk_two_${added.id}`, category: "spf", field: "record" }));
    // D1: the rows stay as guards, without their posture; the diffs are gone.
    expect(await d1Row(`chk_two_${added.id}`)).toMatchObject({ has_posture: 0, archived_at: expect.any(Number) });
    expect(await d1Diffs(added.id)).toBe(0);

    // The API reads the object: the history, the diffs and the latest posture.
    const history = await json<{ data: Array<{ id: string }>; meta: { total: number } }>(
      await call(`/api/v1/domains/${added.id}/checks`, { token: team.full }),
    );
    expect(history.data.map((c) => c.id)).toEqual([`chk_two_${added.id}`, `chk_one_${added.id}`]);
    expect(history.meta.total).toBe(2);
    const diffs = await json<{ data: Array<{ check_id: string; field: string }> }>(await call(`/api/v1/domains/${added.id}/diffs`, { token: team.full }));
    expect(diffs.data.some((d) => d.check_id === `chk_two_${added.id}` && d.field === "record")).toBe(true);
    const detail = await json<{ data: { posture: { check_id: string; records: { spf: { record: string } } } } }>(
      await call(`/api/v1/domains/${added.id}`, { token: team.full }),
    );
    expect(detail.data.posture.check_id).toBe(`chk_two_${added.id}`);
    expect(detail.data.posture.records.spf.record).toBe("v=spf1 include:_spf.example.net -all");
  });

  it("a copy that failed after the check committed: D1 keeps posture and diffs, the latest posture still shows, a view or the cron copies it", async () => {
    quiet();
    const { team, name, added, stub } = await verifiedDomain();
    await runThroughQueue(env, { domain_id: added.id, check_id: `chk_a_${added.id}`, trigger: "manual" });
    stub.restore();
    installDohStub(zoneFor(name, { spf: "v=spf1 -all" }));
    const failing = storeCopyFails();
    // The check is recorded (acked, not retried) although its copy failed.
    expect((await runThroughQueue(failing, { domain_id: added.id, check_id: `chk_b_${added.id}`, trigger: "manual" })).explicitAcks).toHaveLength(1);
    expect(await d1Row(`chk_b_${added.id}`)).toEqual({ has_posture: 1, archived_at: null });
    expect(await d1Diffs(added.id)).toBeGreaterThan(0);
    expect((await checksOf(added.id)).map((c) => c.id)).toEqual([`chk_a_${added.id}`]);
    // The single-domain view reads the latest check from D1 while it waits there.
    const detail = await json<{ data: { posture: { check_id: string } } }>(await call(`/api/v1/domains/${added.id}`, { token: team.full }));
    expect(detail.data.posture.check_id).toBe(`chk_b_${added.id}`);

    // The cron's sweep copies it.
    await tick();
    expect((await checksOf(added.id)).map((c) => c.id)).toEqual([`chk_a_${added.id}`, `chk_b_${added.id}`]);
    expect(await d1Row(`chk_b_${added.id}`)).toMatchObject({ has_posture: 0, archived_at: expect.any(Number) });
    expect(await d1Diffs(added.id)).toBe(0);
    expect((await diffsOf(added.id)).filter((d) => d.check_id === `chk_b_${added.id}`).length).toBeGreaterThan(0);
  });

  it("a view copies what a failed copy left, so the history is exact at once", async () => {
    quiet();
    const { team, added } = await verifiedDomain();
    await runThroughQueue(storeCopyFails(), { domain_id: added.id, check_id: `chk_v_${added.id}`, trigger: "manual" });
    expect((await checksOf(added.id)).length).toBe(0);
    const history = await json<{ data: Array<{ id: string }> }>(await call(`/api/v1/domains/${added.id}/checks`, { token: team.full }));
    expect(history.data.map((c) => c.id)).toEqual([`chk_v_${added.id}`]);
    expect((await checksOf(added.id)).map((c) => c.id)).toEqual([`chk_v_${added.id}`]);
  });

  it("the next check compares with the previous one even when that one's copy failed", async () => {
    quiet();
    const { name, added, stub } = await verifiedDomain();
    await runThroughQueue(storeCopyFails(), { domain_id: added.id, check_id: `chk_p_${added.id}`, trigger: "manual" });
    stub.restore();
    installDohStub(zoneFor(name, { spf: "v=spf1 -all" }));
    await runThroughQueue(env, { domain_id: added.id, check_id: `chk_q_${added.id}`, trigger: "manual" });
    expect((await checksOf(added.id)).map((c) => c.id)).toEqual([`chk_p_${added.id}`, `chk_q_${added.id}`]);
    expect(await diffsOf(added.id)).toContainEqual(expect.objectContaining({ check_id: `chk_q_${added.id}`, category: "spf", field: "record" }));
  });

  it("a redelivery is a duplicate by the guard row, and after the guard row is gone, by the object", async () => {
    const { added } = await verifiedDomain();
    const msg = { domain_id: added.id, check_id: `chk_r_${added.id}`, trigger: "manual" as const };
    await runThroughQueue(env, msg);
    expect(await runCheck(clockedServices(new Date()), msg)).toEqual({ recorded: false, reason: "duplicate" });
    // 21 minutes later the sweep releases the guard row; the object still knows the check.
    quiet();
    await tick(Date.now());
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + GUARD_MS + 60_000 });
    await tick();
    vi.useRealTimers();
    expect(await d1Row(msg.check_id)).toBeNull();
    expect(await runCheck(clockedServices(new Date()), msg)).toEqual({ recorded: false, reason: "duplicate" });
    expect((await checksOf(added.id)).length).toBe(1);
    expect((await eventsOf(added.id)).filter((e) => e.type === "check.completed")).toHaveLength(1);
  });

  it("a quiet check costs D1 nine statements, as before the history moved: nothing is read back to copy it", async () => {
    const { added } = await verifiedDomain();
    await runThroughQueue(env, { domain_id: added.id, check_id: `chk_c1_${added.id}`, trigger: "manual" });
    const seen: string[] = [];
    const db = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "prepare")
          return (query: string) => {
            seen.push(query);
            return target.prepare(query);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await runThroughQueue({ ...env, DB: db } as Env, { domain_id: added.id, check_id: `chk_c2_${added.id}`, trigger: "manual" });
    // Reads: the duplicate guard, the domain, its DKIM selectors and two cached public lists; the batch
    // (check, event, domain); then the copy's one update. The D1 capacity model (docs/capacity.md) uses it.
    expect(seen.filter((q) => /^select/i.test(q))).toHaveLength(5);
    expect(seen.filter((q) => /^(insert|update|delete)/i.test(q)).map((q) => q.split(" ").slice(0, 3).join(" "))).toEqual([
      'insert into "checks"',
      'insert into "events"',
      'update "domains" set',
      'update "checks" set',
    ]);
    expect((await checksOf(added.id)).map((c) => c.id)).toEqual([`chk_c1_${added.id}`, `chk_c2_${added.id}`]);
  });

  it("two runs of one check id at once record it once: the second fails on the guard row's primary key", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    installDohStub(zoneFor(name));
    const msg = { domain_id: added.id, check_id: `chk_twin_${added.id}`, trigger: "manual" as const };
    // The second run writes only once the first has recorded AND copied its check: both passed their
    // duplicate checks before either wrote, so only the guard row can stop the second.
    const first = clockedServices(() => new Date());
    const second = clockedServices(() => new Date());
    const realBatch = second.db.batch.bind(second.db);
    vi.spyOn(second.db, "batch").mockImplementation((async (statements: Parameters<typeof realBatch>[0]) => {
      await vi.waitFor(async () => expect((await checksOf(added.id)).length).toBe(1));
      return realBatch(statements);
    }) as unknown as typeof realBatch);
    const outcomes = await Promise.allSettled([runCheck(first, msg), runCheck(second, msg)]);
    expect(outcomes[0]).toMatchObject({ status: "fulfilled", value: { recorded: true } });
    expect(outcomes[1]).toMatchObject({ status: "rejected" });
    expect((await checksOf(added.id)).length).toBe(1);
    expect((await eventsOf(added.id)).filter((e) => e.type === "check.completed")).toHaveLength(1);
  });
});

describe("the every-minute sweep moves the history D1 kept before (D135)", () => {
  it("copies every legacy check and diff under its own id, newest first in batches, and frees D1 after the guard time", async () => {
    quiet();
    const team = await makeTeam();
    const added = await addDomain(team);
    const day = 86_400_000;
    const now = Date.now();
    const ids: string[] = [];
    const inserts: D1PreparedStatement[] = [];
    for (let i = 0; i < 450; i++) {
      const id = `chk_legacy_${added.id}_${String(i).padStart(3, "0")}`;
      ids.push(id);
      const posture = i >= 440 ? JSON.stringify({ records: { n: i }, blacklists: [], findings: [], recommendations: [], fixes: [], snapshot: {} }) : null;
      inserts.push(
        env.DB.prepare(
          "INSERT INTO checks (id, domain_id, status, trigger, score, grade, posture, queries, created_at) VALUES (?, ?, 'completed', 'scheduled', ?, 'B', ?, 30, ?)",
        ).bind(id, added.id, 80 + (i % 10), posture, now - (450 - i) * day * 0.5),
      );
    }
    inserts.push(
      env.DB.prepare(
        "INSERT INTO diffs (domain_id, check_id, category, field, before, after, severity, created_at) VALUES (?, ?, 'spf', 'record', 'v=spf1 -all', 'v=spf1 ~all', 'Medium', ?)",
      ).bind(added.id, ids[449], now - day * 0.5),
    );
    await env.DB.batch(inserts);
    const diffId = await env.DB.prepare("SELECT id FROM diffs WHERE domain_id = ?").bind(added.id).first<number>("id");

    await tick(); // 450 checks: 200 + 200 + 50 within one tick's budget
    const kept = await checksOf(added.id);
    expect(kept.map((c) => c.id)).toEqual(ids);
    expect(kept.at(-1)).toMatchObject({ score: 89, grade: "B", queries: 30 });
    expect(JSON.parse((await env.DOMAIN_STORE.getByName(`domain:${added.id}`).getCheck(ids[449] ?? ""))?.posture ?? "null")).toMatchObject({
      records: { n: 449 },
    });
    const objectDiffs = await env.DOMAIN_STORE.getByName(`domain:${added.id}`).diffPage(10, 0);
    expect(objectDiffs.rows).toEqual([expect.objectContaining({ id: diffId, checkId: ids[449], before: "v=spf1 -all", after: "v=spf1 ~all" })]);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM checks WHERE domain_id = ? AND archived_at IS NULL").bind(added.id).first("n")).toBe(0);

    // Another tick copies nothing more; once the guard time is over the slim rows go.
    await tick();
    expect((await checksOf(added.id)).length).toBe(450);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + GUARD_MS + 1000 });
    await tick();
    vi.useRealTimers();
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM checks WHERE domain_id = ?").bind(added.id).first("n")).toBe(0);
    const page = await json<{ meta: { total: number } }>(await call(`/api/v1/domains/${added.id}/checks?per_page=1`, { token: team.full }));
    expect(page.meta.total).toBe(450);
  });

  it("one domain's unreachable object does not hold back the others", async () => {
    quiet();
    const team = await makeTeam();
    const a = await addDomain(team);
    const b = await addDomain(team);
    for (const d of [a, b]) {
      await env.DB.prepare("INSERT INTO checks (id, domain_id, status, trigger, queries, created_at) VALUES (?, ?, 'completed', 'scheduled', 0, ?)")
        .bind(`chk_stuck_${d.id}`, d.id, Date.now())
        .run();
    }
    const broken = new Proxy(env.DOMAIN_STORE, {
      get(target, prop) {
        if (prop !== "getByName") return Reflect.get(target, prop, target);
        return (n: string) => (n === `domain:${a.id}` ? { storeChecks: () => Promise.reject(new Error("down (test)")) } : target.getByName(n));
      },
    });
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), { ...env, DOMAIN_STORE: broken } as Env, ctx);
    await waitOnExecutionContext(ctx);
    expect((await checksOf(a.id)).length).toBe(0);
    expect((await checksOf(b.id)).map((c) => c.id)).toEqual([`chk_stuck_${b.id}`]);
    await tick();
    expect((await checksOf(a.id)).map((c) => c.id)).toEqual([`chk_stuck_${a.id}`]);
  });

  it("deleting a domain deletes its check history with its object", async () => {
    const { team, added } = await verifiedDomain();
    await runThroughQueue(env, { domain_id: added.id, check_id: `chk_del_${added.id}`, trigger: "manual" });
    expect((await env.DOMAIN_STORE.getByName(`domain:${added.id}`).stats()).checks).toBe(1);
    expect((await call(`/api/v1/domains/${added.id}`, { method: "DELETE", token: team.full })).status).toBe(204);
    await runInDurableObject(env.DOMAIN_STORE.getByName(`domain:${added.id}`), (_i, state) => {
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'checks'").one().n).toBe(0);
    });
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM checks WHERE domain_id = ?").bind(added.id).first("n")).toBe(0);
  });

  it("another team's domain id reaches no history: 404 on checks and diffs", async () => {
    const { added } = await verifiedDomain();
    await runThroughQueue(env, { domain_id: added.id, check_id: `chk_t_${added.id}`, trigger: "manual" });
    const other = await makeTeam();
    for (const path of ["checks", "diffs"]) {
      const res = await call(`/api/v1/domains/${added.id}/${path}`, { token: other.full });
      expect(res.status).toBe(404);
      expect((await json<{ code: string }>(res)).code).toBe("not_found");
    }
  });
});
