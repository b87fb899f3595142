// The Worker: HTTP (Hono), Cron Triggers, Queue consumers and Email Routing share createServices().
import { createApp } from "./app";
import type { Env } from "./env";

export { RateLimiter } from "./durable-objects/rate-limiter";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
