// Issue 2: the cost of authentication + rate limiting, as GET /api/v1/me against GET / on the same server.
import { startDevServer } from "./lib/dev-server.mjs";
import { fmt, load } from "./lib/load.mjs";

export default async function run() {
  const server = await startDevServer({ port: 8799 });
  try {
    // Enough teams that the enterprise per-minute limit (1,200) never caps the measurement.
    const teams = await Promise.all(Array.from({ length: 12 }, () => server.createTeam("enterprise")));
    const tokens = teams.map((t) => t.tokens.full.token);
    const opts = { total: 3000, concurrency: 16 };
    await load({ total: 300, concurrency: 8, request: () => fetch(`${server.url}/`) }); // warm-up
    const open = await load({ ...opts, request: () => fetch(`${server.url}/`) });
    const authed = await load({
      ...opts,
      request: (i) => fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } }),
    });
    console.log(`GET /            (no auth)      ${fmt(open)}`);
    console.log(`GET /api/v1/me   (auth + DO)    ${fmt(authed)}`);
    console.log(
      `ratio: authenticated throughput is ${(authed.rps / open.rps).toFixed(2)}x the unauthenticated one; p50 latency ${(authed.p50 / open.p50).toFixed(2)}x`,
    );
  } finally {
    await server.stop();
  }
}
