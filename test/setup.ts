// Applies the real drizzle-kit migrations to the test D1 before each test file runs, and restores
// any DNS-over-HTTPS stub a test installed, and the real clock, once that test ends.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, vi } from "vitest";
import { restoreDohStubs } from "./support/doh-stub";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

afterEach(() => {
  restoreDohStubs();
  vi.useRealTimers();
});
