// Failure samples are kept 30 days from arrival on every plan (docs/decisions.md D106, docs/limits.md):
// the daily cron purges older ones in bounded batches. Does I/O (D1).
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { purgeFailuresBefore } from "./store";

export const FAILURE_RETENTION_DAYS = 30;

export function purgeFailureReports(svc: Services, budgetMs?: number) {
  return purgeFailuresBefore(svc, svc.clock.now().getTime() - FAILURE_RETENTION_DAYS * DAY_MS, budgetMs);
}
