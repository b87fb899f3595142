// Cron job (daily): deletes the delivery log older than 30 days and events left without deliveries. Thin adapter.
import type { Env } from "../env";
import { createServices } from "../services";
import { purgeDeliveries } from "../services/webhooks/sweeps";

export const deliveriesRetentionJob = (env: Env) => purgeDeliveries(createServices(env));
