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
    jobs.push(() => dueChecksJob(env), () => outboxSweepJob(env), () => retrySweepJob(env));
  } else if (controller.cron === DAILY) {
    jobs.push(() => dkimAuditJob(env), () => retentionChecksJob(env), () => deliveriesRetentionJob(env));
  } else {
    throw new Error(`unknown cron ${controller.cron}`);
  }
  // Jobs are independent: one failing never stops the others.
  const results = await Promise.allSettled(jobs.map((job) => job()));
  for (const r of results) if (r.status === "rejected") console.error(JSON.stringify({ level: "error", cron: controller.cron, error: String(r.reason) }));
}
