// Issues 3 and 14: a full posture check of a realistic domain against a local DoH server adding 20 ms
// per answer. Prints the DNS query count, the minimal dependency depth, the observed depth, the wall
// time and its ratio to the minimal depth (goal: at most 1.5x).
// analyzeDomain runs in-process (tsx) with a DohResolver pointed at bench/lib/doh-server.mjs over
// real HTTP; the MTA-STS policy is served from memory by an injected fetch (no HTTPS server).
import { observedDepth, startDohServer } from "./lib/doh-server.mjs";

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

/** Dependency depth of the SPF include tree (root TXT = 1). */
function spfDepth(name, seen = new Set()) {
  const rec = (zone[name]?.TXT ?? []).find((t) => typeof t === "string" && t.startsWith("v=spf1"));
  if (!rec || seen.has(name)) return 1;
  seen.add(name);
  const children = [...rec.matchAll(/(?:include:|redirect=)(\S+)/g)].map((m) => spfDepth(m[1], seen));
  return 1 + Math.max(0, ...children);
}

/**
 * `minimal`: every query sent as soon as its name is known, with unlimited connections: the SPF include
 * chain, or MX -> addresses -> blocklists, whichever is longer. `capped`: the same with the blocklist
 * queries 6 at a time (a Worker's simultaneous connections, docs/decisions.md D20): the domain's lists
 * at once, the MX addresses' after MX and A/AAAA (depth 2), the SPF hosts' after the SPF tree.
 */
function depths(dnsblQueries, domainLists) {
  const spf = spfDepth(DOMAIN);
  const minimal = Math.max(spf, 3) + 1;
  const ipQueries = Math.max(0, dnsblQueries - domainLists);
  const capped = Math.max(minimal, 2 + Math.ceil(ipQueries / 6));
  return { spf, minimal, capped };
}

export default async function run() {
  const { analyzeDomain } = await import("../src/core/posture/analyze-domain.ts");
  const { DohResolver } = await import("../src/core/dns/doh-resolver.ts");
  const server = await startDohServer({ zone, delayMs: DELAY_MS });
  const policyFetch = async (input) =>
    String(input) === `https://mta-sts.${DOMAIN}/.well-known/mta-sts.txt`
      ? new Response(POLICY, { headers: { "content-type": "text/plain" } })
      : new Response("not found", { status: 404 });
  try {
    const walls = [];
    let last = null;
    let observed = 0;
    for (let i = 0; i < RUNS + 1; i++) {
      server.reset();
      const resolver = new DohResolver({ endpoints: [server.url], fetch: (u, init) => fetch(u, init) });
      const t0 = performance.now();
      last = await analyzeDomain(DOMAIN, { resolver, fetch: policyFetch, clock: { now: () => new Date() } });
      const wall = performance.now() - t0;
      if (i > 0) walls.push(wall); // run 0 warms up connections and module code
      observed = observedDepth(server.log);
    }
    walls.sort((a, b) => a - b);
    const median = walls[Math.floor(walls.length / 2)];
    const domainLists = new Set((last.blacklists?.cleared ?? []).filter((c) => c.target === DOMAIN).map((c) => c.list)).size;
    const d = depths(last.blacklists?.checked ?? 0, domainLists);
    const statuses = Object.entries(last.records)
      .map(([k, v]) => `${k}=${v.status}`)
      .join(" ");
    console.log(
      `domain ${DOMAIN}: score ${last.score} grade ${last.grade}; ${statuses}; blacklists checked ${last.blacklists?.checked}, listed ${last.blacklists?.listed.length}`,
    );
    console.log(`DNS queries: ${last.queries} (server saw ${server.log.length}); MTA-STS policy served from memory by an injected fetch`);
    console.log(
      `minimal dependency depth: ${d.minimal} answers (SPF chain ${d.spf}; MX, addresses, blocklists 3) = ${d.minimal * DELAY_MS} ms; with blocklists 6 at a time: ${d.capped} = ${d.capped * DELAY_MS} ms`,
    );
    console.log(`observed sequential depth: ${observed}`);
    console.log(`wall time: median ${median.toFixed(1)} ms over ${RUNS} runs (min ${walls[0].toFixed(1)}, max ${walls[walls.length - 1].toFixed(1)})`);
    console.log(
      `  ratio to the minimal depth: ${(median / (d.minimal * DELAY_MS)).toFixed(2)}x (goal <= 1.5x); to the capped depth: ${(median / (d.capped * DELAY_MS)).toFixed(2)}x`,
    );
  } finally {
    await server.stop();
  }
}
