// Cron entry point (wrangler.toml [triggers]): every minute, and daily at 03:17 UTC.
import type { Env } from "../env";
import { dkimAuditJob } from "./dkim-audit";
import { dueChecksJob } from "./due-checks";
import { retentionChecksJob } from "./retention-checks";
import { outboxSweepJob } from "./outbox-sweep";
import { deliveriesRetentionJob } from "./retention-deliveries";
import { retrySweepJob } from "./retry-sweep";

export const EVERY_MINUTE = "* * * * *";
export const DAILY = "17 3 * * *";

export async function handleScheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  const jobs: Array<() => Promise<unknown>> = [];
  if (controller.cron === EVERY_MINUTE) {
    // due checks, event outbox sweep, delivery retry sweep
    jobs.push(() => dueChecksJob(env));
    jobs.push(() => outboxSweepJob(env), () => retrySweepJob(env));
  } else if (controller.cron === DAILY) {
    // DKIM key audit, retention
    jobs.push(() => dkimAuditJob(env));
    jobs.push(() => retentionChecksJob(env));
    jobs.push(() => deliveriesRetentionJob(env));
  } else {
    throw new Error(`unknown cron ${controller.cron}`);
  }
  const results = await Promise.allSettled(jobs.map((job) => job()));
  for (const r of results) if (r.status === "rejected") console.error(JSON.stringify({ level: "error", cron: controller.cron, error: String(r.reason) }));
}
