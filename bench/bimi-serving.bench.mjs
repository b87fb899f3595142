// Issue 32 §2: what serving a hosted BIMI logo costs, as GET /bimi/paypal.com/default.svg (one D1 read by
// name and selector, the stored bytes with their ETag) against GET / (no D1, no authentication) on the same
// `wrangler dev` (port 8960), concurrency 20, in alternating rounds; then the same logo with a matching
// If-None-Match (304). The logo and PayPal's VMC are uploaded through the API on a domain marked verified
// in the local D1. Requests/s, p50 and p99 with the ratio to the bare route; measured, never asserted.
import { readFileSync } from "node:fs";
import { startDevServer } from "./lib/dev-server.mjs";
import { alternateLoads, fmt, load } from "./lib/load.mjs";

const PORT = 8960;
const ROUNDS = 3;
const fixture = (name) => readFileSync(new URL(`../test/fixtures/bimi-hosting/${name}`, import.meta.url));

async function hostLogo(server) {
  const team = await server.createTeam("enterprise");
  const token = team.tokens.full.token;
  const auth = { authorization: `Bearer ${token}` };
  const data = await server.verifiedDomain(token, "paypal.com");
  const put = async (path, body, type) => {
    const res = await fetch(`${server.url}/api/v1/domains/${data.id}/bimi-hosting/${path}`, {
      method: "PUT",
      headers: { ...auth, "content-type": type },
      body,
    });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  await put("logo", fixture("paypal-vmc.svg"), "image/svg+xml");
  await put("certificate", fixture("paypal-vmc.pem"), "application/pem-certificate-chain");
}

export default async function run() {
  const server = await startDevServer({ port: PORT });
  try {
    await hostLogo(server);
    const logoUrl = `${server.url}/bimi/paypal.com/default.svg`;
    const first = await fetch(logoUrl);
    const etag = first.headers.get("etag");
    if (first.status !== 200 || !etag) throw new Error(`logo: ${first.status}`);
    await first.arrayBuffer();
    const opts = { total: 1500, concurrency: 20 };
    const bare = () => load({ ...opts, request: () => fetch(`${server.url}/`) });
    const logo = () => load({ ...opts, request: () => fetch(logoUrl) });
    const cached = () => load({ ...opts, request: () => fetch(logoUrl, { headers: { "if-none-match": etag } }) });
    await load({ total: 300, concurrency: 8, request: () => fetch(`${server.url}/`) }); // warm-up
    await load({ total: 300, concurrency: 8, request: () => fetch(logoUrl) });
    const [o, l, n] = await alternateLoads([bare, logo, cached], ROUNDS);
    console.log(`concurrency ${opts.concurrency}, ${ROUNDS} alternating rounds of ${opts.total} requests each`);
    console.log(`GET /                              (bare)     ${fmt(o)}`);
    console.log(`GET /bimi/paypal.com/default.svg   (200)      ${fmt(l)}`);
    console.log(`same, If-None-Match                (304)      ${fmt(n)}`);
    console.log(
      `ratio: logo throughput ${(l.rps / o.rps).toFixed(2)}x the bare route, p50 ${(l.p50 / o.p50).toFixed(2)}x, p99 ${(l.p99 / o.p99).toFixed(2)}x; 304 throughput ${(n.rps / o.rps).toFixed(2)}x`,
    );
  } finally {
    await server.stop();
  }
}
