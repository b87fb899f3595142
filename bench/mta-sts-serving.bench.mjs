// Issue 32 §1: what serving a hosted MTA-STS policy costs, as GET /.well-known/mta-sts.txt with the Host
// header mta-sts.<domain> (the prefix test, one D1 read by the unique name index, the policy rendered)
// against GET / with the server's own host (the prefix test only, then the app) on the same `wrangler dev`
// (port 8962), concurrency 20, in alternating rounds. Hosting is turned on through the API for a domain
// marked verified in the local D1, its MX hosts from a local DNS-over-HTTPS server. Requests/s, p50 and
// p99 with the ratio to the bare route; measured, never asserted.
import { Agent, request } from "node:http";
import { startDevServer } from "./lib/dev-server.mjs";
import { startDohServer } from "./lib/doh-server.mjs";
import { alternateLoads, fmt, load } from "./lib/load.mjs";

const PORT = 8962;
const ROUNDS = 3;
const DOMAIN = "bench-sts.example";
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

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
  const token = team.tokens.full.token;
  const auth = { authorization: `Bearer ${token}` };
  const data = await server.verifiedDomain(token, DOMAIN);
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
    const [o, p] = await alternateLoads([bare, served], ROUNDS);
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
