// The Worker: HTTP (Hono), Cron Triggers, Queue consumers and Email Routing share createServices().
import { createApp } from "./app";
import { handleScheduled } from "./cron";
import { handleEmail } from "./email";
import type { Env } from "./env";
import { handleQueue } from "./queues";
import { createAgentGateway, isAgentPath } from "./mcp/gateway";
import { withSecurityHeaders } from "./middleware/security-headers";
import { hostedPolicyResponse } from "./routes/mta-sts-hosting/serve";

export { DomainStore } from "./durable-objects/domain-store/object";
export { RateLimiter } from "./durable-objects/rate-limiter";
export { TeamWebhooks } from "./durable-objects/team-webhooks/object";

const app = createApp();
const agent = createAgentGateway(app.fetch);

export default {
  // The agent endpoint and its OAuth server go through the OAuth provider; everything else straight to the app.
  // Every answer leaves with the same security headers (docs/decisions.md D149).
  // A hosted MTA-STS policy host (mta-sts.<domain>) is answered first; other hosts cost one prefix test (D218).
  fetch: async (request, env, ctx) =>
    withSecurityHeaders(
      request,
      (await hostedPolicyResponse(request, env)) ??
        (await (isAgentPath(new URL(request.url).pathname) ? agent(request, env, ctx) : app.fetch(request, env, ctx))),
    ),
  scheduled: handleScheduled,
  queue: handleQueue,
  email: handleEmail,
} satisfies ExportedHandler<Env>;
