// The Worker's exported scheduled handler, called as the runtime calls it: worker.scheduled(controller,
// env, ctx) with a controller from createScheduledController, for every cron expression declared in
// wrangler.toml (read from the file itself), and the schedule table checked against that declaration.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SCHEDULES } from "../../src/cron";
import worker from "../../src/index";
import { installDohStub } from "../support/doh-stub";
import { captureChecks } from "../support/monitoring";
import wranglerToml from "../../wrangler.toml?raw";

afterEach(() => vi.restoreAllMocks());

/** The `crons = [...]` line of wrangler.toml [triggers]. */
function declaredCrons(toml: string): string[] {
  const line = /^crons\s*=\s*\[(.*)\]\s*$/m.exec(toml);
  if (!line) throw new Error("wrangler.toml declares no crons");
  return [...(line[1] ?? "").matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? "");
}

/**
 * The jobs each schedule must run. A job dropped from the table by mistake fails here; removing one on
 * purpose means editing this list in the same change.
 */
const EXPECTED_JOBS: Record<string, string[]> = {
  // The webhook retry sweep and the delivery log's retention run in each team's log object (its alarm, D144).
  "* * * * *": [
    "due-checks",
    "checks-archive",
    "outbox-sweep",
    "ownership-recheck",
    "report-moves",
    "webhook-log-moves",
    "report-summaries",
    "notification-sweep",
    "digests",
    // Hosted MTA-STS: removal after RFC 8461 §8.3, Cloudflare retries, the published id (D217, D219, D220).
    "mta-sts-hosting",
    "audit-seal",
  ],
  "17 3 * * *": [
    "dkim-audit",
    "dmarc-retention",
    "alerts-retention",
    "dkim-keys-retention",
    "silent-reporters",
    "reseal-webhook-secrets",
    "notification-log-retention",
    "audit-retention",
    "bimi-revalidate",
  ],
};

const crons = declaredCrons(wranglerToml);

async function fire(cron: string) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron, scheduledTime: Date.now() }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** Replaces every job's run with a spy that resolves; returns the spies by job name. */
function spyJobs() {
  const spies = new Map<string, ReturnType<typeof vi.fn>>();
  for (const jobs of Object.values(SCHEDULES)) {
    for (const job of jobs) spies.set(job.name, vi.spyOn(job, "run").mockResolvedValue(undefined) as unknown as ReturnType<typeof vi.fn>);
  }
  return spies;
}

describe("wrangler.toml [triggers] and the schedule table agree", () => {
  it("declares exactly the table's schedules, each with at least one job", () => {
    expect(crons.length).toBeGreaterThan(0);
    expect([...crons].sort()).toEqual(Object.keys(SCHEDULES).sort());
    for (const cron of crons) expect(SCHEDULES[cron]?.length, cron).toBeGreaterThan(0);
  });

  it("every job of the table is reachable from a declared cron, and each schedule runs the jobs it must", () => {
    const reachable = crons.flatMap((c) => (SCHEDULES[c] ?? []).map((j) => j.name));
    const all = Object.values(SCHEDULES).flatMap((jobs) => jobs.map((j) => j.name));
    expect(new Set(reachable)).toEqual(new Set(all));
    expect(new Set(all).size, "job names are unique").toBe(all.length);
    for (const cron of crons)
      expect(
        (SCHEDULES[cron] ?? []).map((j) => j.name),
        cron,
      ).toEqual(EXPECTED_JOBS[cron]);
    expect(Object.keys(EXPECTED_JOBS).sort()).toEqual([...crons].sort());
  });
});

describe("the exported scheduled handler", () => {
  it.each(crons)("cron %j runs each of its jobs once, with the services, and no other schedule's jobs", async (cron) => {
    const spies = spyJobs();
    await fire(cron);
    const mine = new Set((SCHEDULES[cron] ?? []).map((j) => j.name));
    for (const [name, spy] of spies) {
      if (mine.has(name)) {
        expect(spy, name).toHaveBeenCalledTimes(1);
        expect(spy.mock.calls[0]?.[0], name).toEqual(expect.objectContaining({ db: expect.anything(), clock: expect.anything(), enqueue: expect.anything() }));
      } else expect(spy, name).not.toHaveBeenCalled();
    }
  });

  it.each(crons)("cron %j runs its real jobs against D1 without any job failing", async (cron) => {
    installDohStub({});
    const capture = captureChecks();
    const errors = vi.spyOn(console, "error");
    try {
      await fire(cron);
    } finally {
      capture.restore();
    }
    const failed = errors.mock.calls.map((c) => String(c[0])).filter((line) => line.includes('"cron"'));
    expect(failed).toEqual([]);
  });

  it("one job failing does not stop the others; the failure is logged with the cron and the job", async () => {
    const cron = crons[0] ?? "";
    const spies = spyJobs();
    const [firstJob] = SCHEDULES[cron] ?? [];
    if (!firstJob) throw new Error("no job");
    spies.get(firstJob.name)?.mockRejectedValue(new Error("boom (test)"));
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await fire(cron);
    for (const job of SCHEDULES[cron] ?? []) expect(spies.get(job.name), job.name).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(errors.mock.calls[0]?.[0]))).toMatchObject({ level: "error", cron, job: firstJob.name, error: "Error: boom (test)" });
  });

  it("refuses a cron expression it does not declare (so a wrangler.toml edit cannot run nothing silently)", async () => {
    const ctx = createExecutionContext();
    await expect(worker.scheduled(createScheduledController({ cron: "*/5 * * * *", scheduledTime: Date.now() }), env, ctx)).rejects.toThrow(/unknown cron/);
  });
});
