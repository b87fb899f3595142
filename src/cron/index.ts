// Cron entry point (wrangler.toml [triggers]): each schedule maps to its jobs in one table, and
// each job is a thin adapter over one service verb. An unknown cron expression throws.
import type { Env } from "../env";
import { createServices, type Services } from "../services";
import { purgeResolvedAlerts } from "../services/alerts/retention";
import { runDueChecks } from "../services/checks/due";
import { sweepCheckArchive } from "../services/checks/archive";
import { recheckOwnership } from "../services/domains/ownership";
import { runDkimAudit } from "../services/dkim-inventory/audit";
import { purgeRetiredKeys } from "../services/dkim-inventory/retention";
import { purgeDmarcData } from "../services/dmarc/retention";
import { checkSilentReporters } from "../services/dmarc/silent-reporters";
import { moveLegacyReports } from "../services/report-moves/move";
import { sweepUnsummarised } from "../services/report-summaries/sweep";
import { moveLegacyDeliveries } from "../services/report-moves/webhooks";
import { resealSecrets } from "../services/webhooks/secrets";
import { sweepOutbox } from "../services/webhooks/sweeps";
import { purgeNotificationLog, sweepNotifications } from "../services/notify/sweep";
import { runDueDigests } from "../services/digests/run";
import { sweepMtaStsHosting } from "../services/mta-sts-hosting/sweep";
import { sweepUnsealed } from "../services/audit/seal";
import { pruneAuditLogs } from "../services/audit/retention";
import { revalidateHostedMarks } from "../services/bimi-hosting/revalidate";

export const EVERY_MINUTE = "* * * * *";
export const DAILY = "17 3 * * *";

export interface CronJob {
  name: string;
  run(svc: Services): Promise<unknown>;
}

/** Every schedule declared in wrangler.toml, and the jobs it runs. Tests check the two agree. */
export const SCHEDULES: Readonly<Record<string, readonly CronJob[]>> = {
  [EVERY_MINUTE]: [
    { name: "due-checks", run: (svc) => runDueChecks(svc) },
    { name: "checks-archive", run: (svc) => sweepCheckArchive(svc) },
    { name: "outbox-sweep", run: sweepOutbox },
    { name: "ownership-recheck", run: (svc) => recheckOwnership(svc) },
    { name: "report-moves", run: (svc) => moveLegacyReports(svc) },
    { name: "webhook-log-moves", run: (svc) => moveLegacyDeliveries(svc) },
    { name: "report-summaries", run: (svc) => sweepUnsummarised(svc) },
    { name: "notification-sweep", run: (svc) => sweepNotifications(svc, svc.clock.now()) },
    { name: "digests", run: (svc) => runDueDigests(svc, svc.clock.now()) },
    { name: "mta-sts-hosting", run: (svc) => sweepMtaStsHosting(svc) },
    { name: "audit-seal", run: (svc) => sweepUnsealed(svc) },
  ],
  [DAILY]: [
    { name: "dkim-audit", run: (svc) => runDkimAudit(svc) },
    { name: "dmarc-retention", run: (svc) => purgeDmarcData(svc) },
    { name: "alerts-retention", run: (svc) => purgeResolvedAlerts(svc) },
    { name: "dkim-keys-retention", run: (svc) => purgeRetiredKeys(svc) },
    { name: "silent-reporters", run: (svc) => checkSilentReporters(svc) },
    { name: "reseal-webhook-secrets", run: (svc) => resealSecrets(svc) },
    { name: "notification-log-retention", run: (svc) => purgeNotificationLog(svc, svc.clock.now()) },
    { name: "audit-retention", run: (svc) => pruneAuditLogs(svc) },
    { name: "bimi-revalidate", run: (svc) => revalidateHostedMarks(svc) },
  ],
};

export async function handleScheduled(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const jobs = SCHEDULES[controller.cron];
  if (!jobs) throw new Error(`unknown cron ${controller.cron}`);
  const svc = createServices(env);
  // Jobs are independent: one failing never stops the others.
  const results = await Promise.allSettled(jobs.map((job) => job.run(svc)));
  results.forEach((r, i) => {
    if (r.status === "rejected") console.error(JSON.stringify({ level: "error", cron: controller.cron, job: jobs[i]?.name, error: String(r.reason) }));
  });
}
