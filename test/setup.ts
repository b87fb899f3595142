// Applies the real drizzle-kit migrations to the test D1 before each test file runs, and restores
// any DNS-over-HTTPS stub a test installed, and the real clock, once that test ends.
import { applyD1Migrations, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, vi } from "vitest";
import { restoreDohStubs } from "./support/doh-stub";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
// The pool loads a Durable Object class through its module runner the first time an object of it starts
// in a test file. Fan-out starts the team webhook log objects from the real queue's consumer, in the
// background, possibly while the file is being torn down (the load then fails with "Closing rpc"): one
// object is started here, before any test, so the class is loaded by then.
await runInDurableObject(env.TEAM_WEBHOOKS.getByName("team:0"), () => undefined);

afterEach(() => {
  restoreDohStubs();
  vi.useRealTimers();
});
