import type { Env } from "./env";

export { RateLimiter } from "./durable-objects/rate-limiter";

export default {
  async fetch() {
    return new Response("ok");
  },
} satisfies ExportedHandler<Env>;
