// Issue 32 §2: what serving a hosted BIMI logo costs, as GET /bimi/paypal.com/default.svg (one D1 read by
// name and selector, the stored bytes with their ETag) against GET / (no D1, no authentication) on the same
// `wrangler dev` (port 8960), concurrency 20, in alternating rounds; then the same logo with a matching
// If-None-Match (304). The logo and PayPal's VMC are uploaded through the API on a domain marked verified
// in the local D1. Requests/s, p50 and p99 with the ratio to the bare route; measured, never asserted.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { startDevServer } from "./lib/dev-server.mjs";
import { fmt, load } from "./lib/load.mjs";

const PORT = 8960;
const ROUNDS = 3;
const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };
const fixture = (name) => readFileSync(new URL(`../test/fixtures/bimi-hosting/${name}`, import.meta.url));

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

async function hostLogo(server) {
  const team = await server.createTeam("enterprise");
  const token = team.tokens.full.token;
  const auth = { authorization: `Bearer ${token}` };
  const created = await fetch(`${server.url}/api/v1/domains`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ name: "paypal.com" }),
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
    {
      env: QUIET,
      encoding: "utf8",
    },
  );
  if (sql.status !== 0) throw new Error(`verify: ${sql.stderr}`);
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
    const a = [];
    const b = [];
    const c = [];
    const order = [
      [bare, a],
      [logo, b],
      [cached, c],
    ];
    for (let r = 0; r < ROUNDS; r++) for (const [fn, out] of r % 2 === 0 ? order : [...order].reverse()) out.push(await fn());
    const o = merge(a);
    const l = merge(b);
    const n = merge(c);
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
