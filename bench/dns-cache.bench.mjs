// Issue 34 §1: the DNS answer cache shared across checks (docs/decisions.md D194-D197). One scheduled round
// of posture checks over a population of domains whose records follow a realistic mix (most include one or
// two big providers' SPF records with their nested includes and use their shared MX hosts; the same
// blocklist zones for everyone; a tail of unique setups), against the local DoH server at 20 ms per answer
// (bench/lib/doh-thread.mjs), three ways: no shared cache, the shared cache cold (first round), warm
// (second round). Each check is the core entry the check runs and bench/posture uses (analyzeDomain), on a
// DohResolver with at most 6 queries in flight (D20), the domain's own names bypassing the shared cache as
// in the check (D196). The shared cache here is a Node Map implementing the same SharedAnswerCache port;
// the TTL rules (floor, ceiling, RFC 2308 negative TTLs, ageing) are the core's, as in the Worker.
// Prints DoH questions per check (mean), check latency (p50/p95), their ratios to the uncached run, and the
// warm latency against the dependency-depth bound bench/posture prints: max(minimal depth, ceil(queries / 6))
// answers x 20 ms, with the minimal depth max(SPF chain, 3, 3, own SPF hosts + 1) of bench/posture.bench.mjs.
import os from "node:os";
import { startDohThread } from "./lib/doh-thread.mjs";

const DELAY_MS = 20;
const DOMAINS = Number(process.env.DNS_CACHE_DOMAINS ?? 1000);
/** Checks running at once: a deployment runs many queue consumers side by side. */
const CONCURRENCY = 10;
/** A delay per cache call for the last run: what a Cache API match or put might cost (an assumption). */
const CACHE_CALL_MS = 3;

// ---- The population. Provider names are made up (".example", RFC 2606) but shaped like the real ones.
const PROVIDERS = {
  google: { spf: "_spf.gmail-like.example", share: 0.42 },
  microsoft: { spf: "spf.protection.outlook-like.example", share: 0.3 },
};
const EXTRA_SENDERS = ["sendgrid-like.example", "mailchimp-like.example", "amazonses-like.example", "mailgun-like.example", "zendesk-like.example"];

function providerZone() {
  const z = {
    // Google-like: one include, three nested netblock includes.
    "_spf.gmail-like.example": {
      TXT: ["v=spf1 include:_netblocks.gmail-like.example include:_netblocks2.gmail-like.example include:_netblocks3.gmail-like.example ~all"],
    },
    "_netblocks.gmail-like.example": { TXT: ["v=spf1 ip4:35.190.247.0/24 ip4:64.233.160.0/19 ip4:66.102.0.0/20 ip4:66.249.80.0/20 ~all"] },
    "_netblocks2.gmail-like.example": { TXT: ["v=spf1 ip6:2001:4860:4000::/36 ip6:2404:6800:4000::/36 ~all"] },
    "_netblocks3.gmail-like.example": { TXT: ["v=spf1 ip4:172.217.0.0/19 ip4:108.177.96.0/19 ~all"] },
    "aspmx.l.gmail-like.example": { A: ["192.0.2.26"], AAAA: ["2001:db8:26::1"] },
    "alt1.aspmx.l.gmail-like.example": { A: ["192.0.2.27"], AAAA: ["2001:db8:27::1"] },
    "alt2.aspmx.l.gmail-like.example": { A: ["192.0.2.28"], AAAA: ["2001:db8:28::1"] },
    // Outlook-like: one include with a nested one; the MX host is per tenant (added per domain).
    "spf.protection.outlook-like.example": { TXT: ["v=spf1 ip4:40.92.0.0/15 ip4:40.107.0.0/16 include:spfd.protection.outlook-like.example -all"] },
    "spfd.protection.outlook-like.example": { TXT: ["v=spf1 ip4:51.4.72.0/24 ip4:51.5.72.0/24 -all"] },
    // A DMARC report vendor many domains send rua to (RFC 9990 authorization per domain).
    "dmarc-vendor.example": { TXT: ["v=spf1 -all"] },
    "_dmarc.dmarc-vendor.example": { TXT: ["v=DMARC1; p=reject"] },
  };
  for (const s of EXTRA_SENDERS) {
    z[`_spf.${s}`] = { TXT: [`v=spf1 include:_ips.${s} -all`] };
    z[`_ips.${s}`] = { TXT: [`v=spf1 ip4:198.18.${EXTRA_SENDERS.indexOf(s) * 8}.0/21 -all`] };
  }
  return z;
}

/** A deterministic pseudo-random sequence, so every run measures the same population. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One domain's records and the facts the depth bound needs (its SPF chain depth, own SPF hosts). */
function domainSetup(i, rand) {
  const name = `d${i}.customer-${i % 97}.example`;
  const z = {};
  const r = rand();
  const kind = r < PROVIDERS.google.share ? "google" : r < PROVIDERS.google.share + PROVIDERS.microsoft.share ? "microsoft" : "unique";
  const includes = [];
  let spfDepth = 1;
  let ownHosts = 0;
  const extras = [];
  if (kind !== "unique") {
    includes.push(PROVIDERS[kind].spf);
    spfDepth = 3; // root -> provider -> nested
    // About half also send through one or two mailing platforms (root -> _spf -> _ips).
    if (rand() < 0.5) extras.push(EXTRA_SENDERS[Math.floor(rand() * EXTRA_SENDERS.length)]);
    if (rand() < 0.15) extras.push(EXTRA_SENDERS[Math.floor(rand() * EXTRA_SENDERS.length)]);
  }
  for (const e of new Set(extras)) includes.push(`_spf.${e}`);
  let ownIp = "";
  if (kind === "unique") {
    // The tail: own mail servers, own addresses in SPF, own include.
    ownIp = `203.0.${Math.floor(i / 250) % 256}.${(i % 250) + 1}`;
    z[`_spf.${name}`] = { TXT: [`v=spf1 ip4:${ownIp} -all`] };
    includes.push(`_spf.${name}`);
    spfDepth = 2;
    ownHosts = 3; // the include's single address -> its blocklist queries
    z[`mail.${name}`] = { A: [ownIp] };
  }
  z[name] = {
    TXT: [`v=spf1 ${includes.map((n) => `include:${n}`).join(" ")} ${kind === "google" ? "~all" : "-all"}`, `site-verification=${i}`],
    MX:
      kind === "google"
        ? [
            { preference: 1, exchange: "aspmx.l.gmail-like.example" },
            { preference: 5, exchange: "alt1.aspmx.l.gmail-like.example" },
            { preference: 10, exchange: "alt2.aspmx.l.gmail-like.example" },
          ]
        : kind === "microsoft"
          ? [{ preference: 0, exchange: `d${i}-customer.mail.protection.outlook-like.example` }]
          : [{ preference: 10, exchange: `mail.${name}` }],
  };
  if (kind === "microsoft") z[`d${i}-customer.mail.protection.outlook-like.example`] = { A: [`192.0.2.${100 + (i % 4)}`] };
  const vendor = rand() < 0.4;
  z[`_dmarc.${name}`] = {
    TXT: [`v=DMARC1; p=${rand() < 0.5 ? "reject" : "quarantine"}; rua=mailto:dmarc@${name}${vendor ? ",mailto:agg@dmarc-vendor.example" : ""}`],
  };
  if (vendor) z[`${name}._report._dmarc.dmarc-vendor.example`] = { TXT: ["v=DMARC1"] };
  if (rand() < 0.3) z[`_smtp._tls.${name}`] = { TXT: [`v=TLSRPTv1; rua=mailto:tls@${name}`] };
  const minimal = Math.max(spfDepth, 3, 3, ownHosts);
  return { name, zone: z, minimal };
}

function population(n) {
  const rand = rng(34);
  const zone = providerZone();
  const domains = [];
  for (let i = 0; i < n; i++) {
    const d = domainSetup(i, rand);
    Object.assign(zone, d.zone);
    domains.push({ name: d.name, minimal: d.minimal });
  }
  return { zone, domains };
}

// ---- The shared cache: a Map behind the SharedAnswerCache port, dropping entries after their TTL as
// the Cache API's max-age does.
function mapCache() {
  const entries = new Map();
  return {
    size: () => entries.size,
    async get(key) {
      const e = entries.get(key);
      if (!e) return null;
      if (Date.now() >= e.expires) {
        entries.delete(key);
        return null;
      }
      return { bytes: e.bytes, storedAt: e.storedAt };
    },
    async put(key, bytes, ttlSeconds, storedAt) {
      entries.set(key, { bytes, storedAt, expires: Date.now() + ttlSeconds * 1000 });
    },
  };
}

/** The same cache with a delay on every call: a stand-in for the Cache API's own latency (not measured here). */
function slowed(cache, ms) {
  const wait = () => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    async get(key) {
      await wait();
      return cache.get(key);
    },
    async put(...args) {
      await wait();
      return cache.put(...args);
    },
  };
}

/** The runtime's connection queue: at most `limit` fetches in flight per check (D20), the rest wait in call order. */
function queuedFetch(limit) {
  let running = 0;
  const waiting = [];
  return async (url, init) => {
    if (running < limit) running++;
    else await new Promise((resolve) => waiting.push(resolve));
    try {
      return await fetch(url, init);
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

async function round(domains, mod, serverUrl, shared) {
  const { analyzeDomain, DohResolver, ownZoneBypass } = mod;
  const policyFetch = async () => new Response("not found", { status: 404 });
  const out = new Array(domains.length);
  let next = 0;
  async function worker() {
    for (;;) {
      const i = next++;
      if (i >= domains.length) return;
      const d = domains[i];
      const resolver = new DohResolver({
        endpoints: [serverUrl],
        fetch: queuedFetch(6),
        ...(shared ? { shared: { cache: shared, bypass: ownZoneBypass(d.name) } } : {}),
      });
      const t0 = performance.now();
      const a = await analyzeDomain(d.name, { resolver, fetch: policyFetch, clock: { now: () => new Date() } });
      await resolver.settled(); // as the check does: its shared-cache writes land before it ends
      out[i] = {
        ms: performance.now() - t0,
        queries: resolver.queriesSent,
        hits: resolver.sharedHits,
        score: a.score,
        grade: a.grade,
        snapshot: JSON.stringify(a.snapshot),
      };
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return out;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

function summary(label, rows) {
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  const s = { label, queries: mean(rows.map((r) => r.queries)), hits: mean(rows.map((r) => r.hits)), p50: pct(ms, 50), p95: pct(ms, 95) };
  return s;
}

export default async function run() {
  const { analyzeDomain } = await import("../src/core/posture/analyze-domain.ts");
  const { DohResolver } = await import("../src/core/dns/doh-resolver.ts");
  const { ownZoneBypass } = await import("../src/core/dns/shared-cache.ts");
  const mod = { analyzeDomain, DohResolver, ownZoneBypass };
  const { zone, domains } = population(DOMAINS);
  const server = await startDohThread({ zone, delayMs: DELAY_MS });
  console.log(`machine: ${os.cpus()[0]?.model ?? "?"} x ${os.cpus().length}, Node ${process.version}`);
  console.log(
    `population: ${domains.length} domains, ${Object.keys(zone).length} names; DoH server at ${DELAY_MS} ms per answer (TTL 300 s, negative answers SOA MINIMUM 60); ${CONCURRENCY} checks at once, each at most 6 queries in flight`,
  );
  console.log(
    "shared cache: a Node Map implementing the SharedAnswerCache port (src/core/dns/shared-cache.ts); the TTL rules are the core's, as in the Worker",
  );
  try {
    await round(domains.slice(0, 20), mod, server.url, null); // warm-up: connections, module code
    await server.reset();
    const uncached = await round(domains, mod, server.url, null);
    const cache = mapCache();
    const cold = await round(domains, mod, server.url, cache);
    const warm = await round(domains, mod, server.url, cache);
    const warmSlow = await round(domains, mod, server.url, slowed(cache, CACHE_CALL_MS));
    const same = domains.filter((_, i) => [cold, warm, warmSlow].every((run) => run[i].snapshot === uncached[i].snapshot)).length;
    const rows = [
      summary("no shared cache", uncached),
      summary("shared, cold", cold),
      summary("shared, warm", warm),
      summary(`warm, ${CACHE_CALL_MS} ms/call`, warmSlow),
    ];
    const base = rows[0];
    for (const r of rows) {
      console.log(
        `${r.label.padEnd(19)} DoH questions per check ${r.queries.toFixed(1).padStart(5)} (${(base.queries / r.queries).toFixed(2)}x fewer)` +
          `  shared hits ${r.hits.toFixed(1).padStart(5)}  latency p50 ${r.p50.toFixed(1)} ms (${(r.p50 / base.p50).toFixed(2)}x)  p95 ${r.p95.toFixed(1)} ms (${(r.p95 / base.p95).toFixed(2)}x)`,
      );
    }
    console.log(`entries in the shared cache: ${cache.size()}; posture identical in every run for ${same} of ${domains.length} domains`);
    // bench/posture's bound per domain, from its uncached question count; warm latency over that bound.
    const bound = domains.map((d, i) => Math.max(d.minimal, Math.ceil(uncached[i].queries / 6)) * DELAY_MS);
    const ratios = warm.map((w, i) => w.ms / bound[i]).sort((a, b) => a - b);
    const slowRatios = warmSlow.map((w, i) => w.ms / bound[i]).sort((a, b) => a - b);
    const sortedBound = [...bound].sort((a, b) => a - b);
    console.log(
      `dependency-depth bound (bench/posture: max(minimal depth, ceil(uncached queries / 6)) x ${DELAY_MS} ms): p50 ${pct(sortedBound, 50)} ms, p95 ${pct(sortedBound, 95)} ms`,
    );
    console.log(
      `warm latency / bound per check: p50 ${pct(ratios, 50).toFixed(2)}x, p95 ${pct(ratios, 95).toFixed(2)}x (target <= 1.3x); with ${CACHE_CALL_MS} ms per cache call p50 ${pct(slowRatios, 50).toFixed(2)}x, p95 ${pct(slowRatios, 95).toFixed(2)}x; questions warm vs uncached ${(base.queries / rows[2].queries).toFixed(2)}x fewer (target >= 3x)`,
    );
  } finally {
    await server.stop();
  }
}
