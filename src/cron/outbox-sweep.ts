// Cron job (every minute): re-nudges fan-out of events whose queue message was lost. Thin adapter.
import type { Env } from "../env";
import { createServices } from "../services";
import { sweepOutbox } from "../services/webhooks/sweeps";

export const outboxSweepJob = (env: Env) => sweepOutbox(createServices(env));
