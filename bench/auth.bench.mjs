// Issue 14 item 3: the cost of authentication + rate limiting, as GET /api/v1/domains (bearer token,
// rate limit and quota from the isolate's lease on the team's Durable Object) against GET / (no
// authentication) on the same `wrangler dev` (port 8950), concurrency 20, in alternating rounds.
// Targets: at least 0.7x the throughput, p50 at most 1.5x (docs/decisions.md D51: verified tokens are
// cached per isolate; D55: rate-limit leases; the list is one D1 statement).
import { startDevServer } from "./lib/dev-server.mjs";
import { alternateLoads, fmt, load } from "./lib/load.mjs";

const PORT = 8950;
const ROUNDS = 3;

export default async function run() {
  const server = await startDevServer({ port: PORT });
  try {
    // Enough teams that the enterprise per-minute limit (1,200) never caps the measurement.
    const teams = await Promise.all(Array.from({ length: 16 }, () => server.createTeam("enterprise")));
    const tokens = teams.map((t) => t.tokens.full.token);
    const opts = { total: 1500, concurrency: 20 };
    const open = () => load({ ...opts, request: () => fetch(`${server.url}/`) });
    const authed = () =>
      load({ ...opts, request: (i) => fetch(`${server.url}/api/v1/domains`, { headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } }) });
    await load({ total: 300, concurrency: 8, request: () => fetch(`${server.url}/`) }); // warm-up
    await load({
      total: 300,
      concurrency: 8,
      request: (i) => fetch(`${server.url}/api/v1/domains`, { headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } }),
    });
    // GET /me: authentication and the rate limit alone (its handler reads nothing more).
    const me = () => load({ ...opts, request: (i) => fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } }) });
    const [o, t, m] = await alternateLoads([open, authed, me], ROUNDS);
    console.log(`concurrency ${opts.concurrency}, ${ROUNDS} alternating rounds of ${opts.total} requests each`);
    console.log(`GET /                (no auth)            ${fmt(o)}`);
    console.log(`GET /api/v1/domains  (token + lease + D1) ${fmt(t)}`);
    console.log(`GET /api/v1/me       (token + lease)      ${fmt(m)}   (${(m.rps / o.rps).toFixed(2)}x, p50 ${(m.p50 / o.p50).toFixed(2)}x)`);
    const tr = t.rps / o.rps;
    const lr = t.p50 / o.p50;
    console.log(
      `ratio: authenticated throughput ${tr.toFixed(2)}x the unauthenticated (target >= 0.7x: ${tr >= 0.7 ? "met" : "NOT met"}); p50 ${lr.toFixed(2)}x (target <= 1.5x: ${lr <= 1.5 ? "met" : "NOT met"})`,
    );
  } finally {
    await server.stop();
  }
}
