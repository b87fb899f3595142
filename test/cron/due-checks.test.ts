// The every-minute tick: due verified domains are claimed in one statement and enqueued once, even across overlapping ticks.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { handleScheduled } from "../../src/cron";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runDueChecks } from "../../src/services/checks/due";
import { CHECK_LEASE_MS } from "../../src/services/domains/schedule";
import { makeTeam } from "../support/api";
import { addDomain, captureChecks, clockedServices, markVerified } from "../support/monitoring";

let capture: ReturnType<typeof captureChecks> | null = null;
afterEach(() => {
  capture?.restore();
  capture = null;
});

describe("due checks (cron)", () => {
  it("enqueues each due verified domain once; two ticks never double-enqueue; the lease moves next_check_at", async () => {
    capture = captureChecks();
    const team = await makeTeam();
    const past = new Date(Date.now() - 60_000);
    const due = [await addDomain(team), await addDomain(team)];
    for (const d of due) await markVerified(d.id, past);
    const future = await addDomain(team);
    await markVerified(future.id, new Date(Date.now() + 3_600_000));
    await addDomain(team); // unverified: never scheduled

    const now = new Date();
    const svc = clockedServices(now);
    const [a, b] = await Promise.all([runDueChecks(svc), runDueChecks(svc)]);
    const mine = capture.sent.filter((m) => due.some((d) => d.id === m.domain_id) || m.domain_id === future.id);
    expect(mine.map((m) => m.domain_id).sort()).toEqual(due.map((d) => d.id).sort());
    expect(new Set(mine.map((m) => m.check_id)).size).toBe(2);
    expect(mine.every((m) => m.trigger === "scheduled")).toBe(true);
    expect(a.enqueued + b.enqueued).toBeGreaterThanOrEqual(2);
    const row = await env.DB.prepare("SELECT next_check_at FROM domains WHERE id = ?").bind(due[0]?.id).first<{ next_check_at: number }>();
    expect(row?.next_check_at).toBe(now.getTime() + CHECK_LEASE_MS);
    await runDueChecks(svc);
    expect(
      capture.sent.filter((m) => due.some((d) => d.id === m.domain_id)),
      "a third tick finds nothing due",
    ).toHaveLength(2);
  });

  it("sends at most 100 messages per sendBatch", async () => {
    capture = captureChecks();
    const team = await makeTeam();
    const d = await addDomain(team);
    await env.DB.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250)
      INSERT INTO domains (team_id, name, verified, verification_token, report_token, next_check_at, created_at)
      SELECT ?1, 'bulk' || i || '-' || ?2 || '.com', 1, 'tok', 'rt' || i || '-' || ?2, ?3, ?3 FROM n`)
      .bind(team.id, d.id, Date.now() - 1000)
      .run();
    const spy = capture;
    const out = await runDueChecks(clockedServices(new Date()));
    expect(out.enqueued).toBeGreaterThanOrEqual(250);
    expect(spy.sent.length).toBeGreaterThanOrEqual(250);
    const calls = vi.mocked(env.CHECKS_QUEUE.sendBatch).mock.calls;
    expect(calls.every(([msgs]) => [...msgs].length <= 100)).toBe(true);
  });

  it("runs from the Cron Trigger entry point", async () => {
    capture = captureChecks();
    const team = await makeTeam();
    const d = await addDomain(team);
    await markVerified(d.id, new Date(Date.now() - 1000));
    const ctx = createExecutionContext();
    await handleScheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(capture.sent.filter((m) => m.domain_id === d.id)).toHaveLength(1);
  });
});
