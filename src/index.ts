// The Worker: HTTP (Hono), Cron Triggers, Queue consumers and Email Routing share createServices().
import { createApp } from "./app";
import { handleScheduled } from "./cron";
import { handleEmail } from "./email";
import type { Env } from "./env";
import { handleQueue } from "./queues";

export { RateLimiter } from "./durable-objects/rate-limiter";

const app = createApp();

export default {
  fetch: app.fetch,
  scheduled: handleScheduled,
  queue: handleQueue,
  email: handleEmail,
} satisfies ExportedHandler<Env>;
