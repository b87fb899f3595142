// Issues 3 and 14: a full posture check of a realistic domain against a local DoH server adding 20 ms
// per answer. Prints the DNS query count, the minimal dependency depth, the lower bound the Worker's 6
// connections put on it, the wall time and its ratios (goal: at most 1.5x the minimal depth), and for the
// median run every query's times and the critical path (bench/lib/dns-trace.mjs).
// analyzeDomain runs in-process (tsx) with a DohResolver pointed at bench/lib/doh-server.mjs, in a worker
// thread (bench/lib/doh-thread.mjs), over real HTTP; the MTA-STS policy is served from memory by an injected fetch (no HTTPS server).
// Two settings: fetches queued beyond 6 in flight, first come first served, as the Workers runtime does
// (docs/decisions.md D20), and unlimited (what Node alone would do).
import { createTrace, criticalPath, printCriticalPath, printTrace } from "./lib/dns-trace.mjs";
import { observedDepth } from "./lib/doh-server.mjs";
import { startDohThread } from "./lib/doh-thread.mjs";

const DELAY_MS = 20;
const RUNS = 5;
const DOMAIN = "acme.example";

export const zone = {
  [DOMAIN]: {
    TXT: ["v=spf1 include:_spf.acme.example include:spf.mailvendor.example ip4:198.51.100.7 -all", "google-site-verification=abc123"],
    MX: [
      { preference: 10, exchange: "mx1.acme.example" },
      { preference: 20, exchange: "mx2.acme.example" },
    ],
  },
  // Two levels of includes under the root record.
  "_spf.acme.example": { TXT: ["v=spf1 include:_netblocks.acme.example include:_netblocks2.acme.example ~all"] },
  "_netblocks.acme.example": { TXT: ["v=spf1 ip4:192.0.2.0/25 ip6:2001:db8:1::/48 ~all"] },
  "_netblocks2.acme.example": { TXT: ["v=spf1 ip4:192.0.2.128/25 ~all"] },
  "spf.mailvendor.example": { TXT: ["v=spf1 include:_ips.mailvendor.example -all"] },
  "_ips.mailvendor.example": { TXT: ["v=spf1 ip4:203.0.113.0/24 -all"] },
  "mx1.acme.example": { A: ["192.0.2.25"], AAAA: ["2001:db8:1::25"] },
  "mx2.acme.example": { A: ["192.0.2.26"] },
  "_dmarc.acme.example": { TXT: ["v=DMARC1; p=reject; rua=mailto:dmarc@acme.example,mailto:agg@reports.vendor.example; adkim=s"] },
  // RFC 9990 external destination authorization for the second rua.
  "acme.example._report._dmarc.reports.vendor.example": { TXT: ["v=DMARC1"] },
  "default._bimi.acme.example": { TXT: ["v=BIMI1; l=https://acme.example/logo.svg; a=https://acme.example/vmc.pem"] },
  "_mta-sts.acme.example": { TXT: ["v=STSv1; id=20261121T000000"] },
  "_smtp._tls.acme.example": { TXT: ["v=TLSRPTv1; rua=mailto:tls-reports@acme.example"] },
};
const POLICY = "version: STSv1\r\nmode: enforce\r\nmx: mx1.acme.example\r\nmx: mx2.acme.example\r\nmax_age: 604800\r\n";

/** Each SPF record's depth (root = 1) and the single addresses of the domain's own records in it (ip4 /32, ip6 /128). */
function spfRecords(name, depth = 1, seen = new Set(), out = []) {
  const rec = (zone[name]?.TXT ?? []).find((t) => typeof t === "string" && t.startsWith("v=spf1"));
  if (!rec || seen.has(name)) return out;
  seen.add(name);
  const own = name === DOMAIN || name.endsWith(`.${DOMAIN}`);
  const single = /\bip4:([\d.]+)(?:\/32)?(?=\s|$)|\bip6:([\da-f:]+)(?:\/128)?(?=\s|$)/gi;
  const hosts = own ? [...rec.matchAll(single)].map((m) => m[1] ?? m[2]) : [];
  out.push({ name, depth, hosts });
  for (const m of rec.matchAll(/(?:include:|redirect=)(\S+)/g)) spfRecords(m[1], depth + 1, seen, out);
  return out;
}

/**
 * `minimal`: the longest chain of answers, each query sent as soon as its name is known, connections
 * unlimited: the SPF include chain; MX -> host addresses -> their blocklist queries; the DMARC record ->
 * the tree walks of its external report destinations (RFC 9989 §4.10) -> their authorization records
 * (RFC 9990); an address in one of the domain's own SPF records -> its blocklist queries.
 * `connections`: with at most 6 queries in flight (the Worker's connections, docs/decisions.md D20), `queries`
 * answers need at least ceil(queries / 6) rounds, whatever the order.
 */
function depths(queries) {
  const records = spfRecords(DOMAIN);
  const spf = Math.max(0, ...records.map((r) => r.depth));
  const ownHosts = Math.max(0, ...records.filter((r) => r.hosts.length > 0).map((r) => r.depth + 1));
  const minimal = Math.max(spf, 3, 3, ownHosts);
  return { spf, ownHosts, minimal, connections: Math.max(minimal, Math.ceil(queries / 6)) };
}

/** The runtime's connection queue: at most `limit` fetches in flight, the rest wait in call order. */
function queuedFetch(inner, limit) {
  if (!limit) return inner;
  let running = 0;
  const waiting = [];
  return async (url, init) => {
    // A finished fetch hands its slot to the first waiter, so a later call cannot overtake it.
    if (running < limit) running++;
    else await new Promise((resolve) => waiting.push(resolve));
    try {
      return await inner(url, init);
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

async function measure(server, policyFetch, analyzeDomain, DohResolver, connections) {
  const trace = createTrace();
  const runs = [];
  for (let i = 0; i < RUNS + 1; i++) {
    await server.reset();
    trace.reset();
    const fetchDns = queuedFetch(
      trace.fetch((u, init) => fetch(u, init)),
      connections,
    );
    const resolver = trace.resolver(new DohResolver({ endpoints: [server.url], fetch: fetchDns, maxInFlight: connections || Number.POSITIVE_INFINITY }));
    const t0 = performance.now();
    const result = await analyzeDomain(DOMAIN, { resolver, fetch: policyFetch, clock: { now: () => new Date() } });
    const wall = performance.now() - t0;
    // run 0 warms up connections and module code
    const log = await server.log();
    if (i > 0) runs.push({ wall, result, observed: observedDepth(log), rows: trace.rows(log, t0) });
  }
  runs.sort((a, b) => a.wall - b.wall);
  return { runs, median: runs[Math.floor(runs.length / 2)] };
}

export default async function run() {
  const { analyzeDomain } = await import("../src/core/posture/analyze-domain.ts");
  const { DohResolver } = await import("../src/core/dns/doh-resolver.ts");
  const server = await startDohThread({ zone, delayMs: DELAY_MS });
  const policyFetch = async (input) =>
    String(input) === `https://mta-sts.${DOMAIN}/.well-known/mta-sts.txt`
      ? new Response(POLICY, { headers: { "content-type": "text/plain" } })
      : new Response("not found", { status: 404 });
  try {
    for (const connections of [6, 0]) {
      const { runs, median } = await measure(server, policyFetch, analyzeDomain, DohResolver, connections);
      const last = median.result;
      const d = depths(last.queries);
      const statuses = Object.entries(last.records)
        .map(([k, v]) => `${k}=${v.status}`)
        .join(" ");
      console.log(connections ? `\n-- fetches beyond ${connections} in flight queued in call order, as in a Worker (D20) --` : "\n-- unlimited connections --");
      console.log(
        `domain ${DOMAIN}: score ${last.score} grade ${last.grade}; ${statuses}; blacklists checked ${last.blacklists?.checked}, listed ${last.blacklists?.listed.length}`,
      );
      console.log(`DNS queries: ${last.queries} (server saw ${median.rows.length}); MTA-STS policy served from memory by an injected fetch`);
      printTrace(median.rows);
      printCriticalPath(criticalPath(median.rows), DELAY_MS);
      console.log(
        `minimal dependency depth: ${d.minimal} answers (SPF chain ${d.spf}; MX, addresses, blocklists 3; DMARC, destinations, authorization 3; own SPF addresses, blocklists ${d.ownHosts}) = ${d.minimal * DELAY_MS} ms`,
      );
      console.log(
        `  with at most 6 queries in flight: at least max(${d.minimal}, ceil(${last.queries} / 6)) = ${d.connections} answers = ${d.connections * DELAY_MS} ms`,
      );
      console.log(`observed sequential depth: ${median.observed}`);
      const walls = runs.map((r) => r.wall);
      console.log(`wall time: median ${median.wall.toFixed(1)} ms over ${RUNS} runs (min ${walls[0].toFixed(1)}, max ${walls[walls.length - 1].toFixed(1)})`);
      console.log(
        `  ratio to the minimal depth: ${(median.wall / (d.minimal * DELAY_MS)).toFixed(2)}x (goal <= 1.5x); to the 6-in-flight bound: ${(median.wall / (d.connections * DELAY_MS)).toFixed(2)}x`,
      );
    }
  } finally {
    await server.stop();
  }
}
