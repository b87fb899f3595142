// Issue 32 §1: what serving a hosted MTA-STS policy costs, as GET /.well-known/mta-sts.txt with the Host
// header mta-sts.<domain> (the prefix test, one D1 read by the unique name index, the policy rendered)
// against GET / with the server's own host (the prefix test only, then the app) on the same `wrangler dev`
// (port 8962), concurrency 20, in alternating rounds. Hosting is turned on through the API for a domain
// marked verified in the local D1, its MX hosts from a local DNS-over-HTTPS server. Requests/s, p50 and
// p99 with the ratio to the bare route; measured, never asserted.
import { spawnSync } from "node:child_process";
import { Agent, request } from "node:http";
import { startDevServer } from "./lib/dev-server.mjs";
import { startDohServer } from "./lib/doh-server.mjs";
import { fmt, load } from "./lib/load.mjs";

const PORT = 8962;
const ROUNDS = 3;
const DOMAIN = "bench-sts.example";
const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

const merge = (runs) => ({
  total: runs.reduce((a, r) => a + r.total, 0),
  rps: runs.reduce((a, r) => a + r.rps, 0) / runs.length,
  p50: [...runs.map((r) => r.p50)].sort((a, b) => a - b)[Math.floor(runs.length / 2)],
  p99: Math.max(...runs.map((r) => r.p99)),
  statuses: runs.reduce((a, r) => {
    for (const [k, v] of Object.entries(r.statuses)) a[k] = (a[k] ?? 0) + v;
    return a;
  }, {}),
});

/** GET with a chosen Host header (fetch() sets Host from the URL), answered in the shape load() reads. */
function get(base, path, host) {
  const u = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: u.hostname, port: u.port, path: u.pathname, agent, headers: host ? { host } : {} }, (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => {
        const body = Buffer.concat(parts);
        resolve({ status: res.statusCode, arrayBuffer: async () => body, text: async () => body.toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

async function hostPolicy(server) {
  const team = await server.createTeam("enterprise");
  const auth = { authorization: `Bearer ${team.tokens.full.token}` };
  const created = await fetch(`${server.url}/api/v1/domains`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ name: DOMAIN }),
  });
  if (created.status !== 201) throw new Error(`domain: ${created.status} ${await created.text()}`);
  const { data } = await created.json();
  // Ownership is proven by DNS in real use; the bench marks it in the local D1 directly.
  const sql = spawnSync(
    "npx",
    [
      "wrangler",
      "d1",
      "execute",
      "DB",
      "--local",
      "--persist-to",
      server.persist,
      "--command",
      `UPDATE domains SET verified = 1, verified_at = ${Date.now()} WHERE id = ${data.id}`,
    ],
    { env: QUIET, encoding: "utf8" },
  );
  if (sql.status !== 0) throw new Error(`verify: ${sql.stderr}`);
  const on = await fetch(`${server.url}/api/v1/domains/${data.id}/mta-sts-hosting`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ id_delivery: "txt" }),
  });
  if (on.status !== 201) throw new Error(`hosting: ${on.status} ${await on.text()}`);
}

export default async function run() {
  const doh = await startDohServer({ zone: { [DOMAIN]: { MX: [{ preference: 10, exchange: `mx1.${DOMAIN}` }] } }, delayMs: 0 });
  const server = await startDevServer({ port: PORT, vars: { DOH_RESOLVERS: doh.url } });
  try {
    await hostPolicy(server);
    const policy = await get(server.url, "/.well-known/mta-sts.txt", `mta-sts.${DOMAIN}`);
    const text = await policy.text();
    if (policy.status !== 200 || !text.startsWith("version: STSv1\r\n")) throw new Error(`policy: ${policy.status} ${text}`);
    const opts = { total: 1500, concurrency: 20 };
    const bare = () => load({ ...opts, request: () => get(server.url, "/") });
    const served = () => load({ ...opts, request: () => get(server.url, "/.well-known/mta-sts.txt", `mta-sts.${DOMAIN}`) });
    await load({ total: 300, concurrency: 8, request: () => get(server.url, "/") }); // warm-up
    await load({ total: 300, concurrency: 8, request: () => get(server.url, "/.well-known/mta-sts.txt", `mta-sts.${DOMAIN}`) });
    const a = [];
    const b = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [bare, served] : [served, bare];
      for (const fn of order) (fn === bare ? a : b).push(await fn());
    }
    const o = merge(a);
    const p = merge(b);
    console.log(`concurrency ${opts.concurrency}, ${ROUNDS} alternating rounds of ${opts.total} requests each`);
    console.log(`GET /                                   (bare)     ${fmt(o)}`);
    console.log(`GET mta-sts.${DOMAIN}/.well-known/mta-sts.txt   ${fmt(p)}`);
    console.log(
      `ratio: policy throughput ${(p.rps / o.rps).toFixed(2)}x the bare route, p50 ${(p.p50 / o.p50).toFixed(2)}x, p99 ${(p.p99 / o.p99).toFixed(2)}x`,
    );
  } finally {
    await server.stop();
    await doh.stop();
    agent.destroy();
  }
}
