// Applies the real drizzle-kit migrations to the test D1 before each test file runs, restores any
// DNS-over-HTTPS stub a test installed, and the real clock, once that test ends, and lets the real
// queue's fan-outs finish before the file is torn down.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, afterEach, vi } from "vitest";
import { restoreDohStubs } from "./support/doh-stub";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

afterEach(() => {
  restoreDohStubs();
  vi.useRealTimers();
});

/**
 * Events a test published to the real deliveries queue are fanned out in the background, into the
 * team's webhook log object. The pool reaches every object through its module runner, which closes
 * when the file ends: a fan-out still running then fails the file ("Closing rpc while resolve was
 * pending"). So the file waits while the D1 outbox is draining; rows that stop moving (events a test
 * sent to a fake queue, which nothing fans out) end the wait after 1.5 s, longer than the queue's
 * batch timeout (1 s, wrangler.toml).
 */
afterAll(async () => {
  let last = -1;
  let still = Date.now();
  for (;;) {
    const n = Number(await env.DB.prepare("SELECT COUNT(*) AS n FROM events").first("n"));
    if (n === 0) return;
    if (n !== last) {
      last = n;
      still = Date.now();
    } else if (Date.now() - still > 1_500) return;
    await new Promise((r) => setTimeout(r, 100));
  }
});
