// Cron job (every minute): re-enqueues pending deliveries well past due (lost messages). Thin adapter.
import type { Env } from "../env";
import { createServices } from "../services";
import { sweepRetries } from "../services/webhooks/sweeps";

export const retrySweepJob = (env: Env) => sweepRetries(createServices(env));
