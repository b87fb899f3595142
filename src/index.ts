// The Worker: HTTP (Hono), Cron Triggers, Queue consumers and Email Routing share createServices().
import { createApp } from "./app";
import { handleScheduled } from "./cron";
import { handleEmail } from "./email";
import type { Env } from "./env";
import { handleQueue } from "./queues";
import { createAgentGateway, isAgentPath } from "./mcp/gateway";
import { withSecurityHeaders } from "./middleware/security-headers";

export { DomainStore } from "./durable-objects/domain-store/object";
export { RateLimiter } from "./durable-objects/rate-limiter";
export { TeamWebhooks } from "./durable-objects/team-webhooks/object";

const app = createApp();
const agent = createAgentGateway(app.fetch);

export default {
  // The agent endpoint and its OAuth server go through the OAuth provider; everything else straight to the app.
  // Every answer leaves with the same security headers (docs/decisions.md D149).
  fetch: async (request, env, ctx) =>
    withSecurityHeaders(request, await (isAgentPath(new URL(request.url).pathname) ? agent(request, env, ctx) : app.fetch(request, env, ctx))),
  scheduled: handleScheduled,
  queue: handleQueue,
  email: handleEmail,
} satisfies ExportedHandler<Env>;
