// DKIM inventory refresh: CPU per domain of refreshDkimInventory (40 selector lookups from memory,
// key analysis, planning the writes) and the statements/events it produces. The D1 read is faked
// (a domain with N known selectors); DNS answers from memory, so the figure is pure CPU.
import { performance } from "node:perf_hooks";

const { refreshDkimInventory } = await import("../src/services/dkim-inventory/refresh.ts");
const { generateKeyPair } = await import("../src/core/dkim/index.ts");
const { createDb } = await import("../src/db/client.ts");

const DOMAIN = { id: 1, teamId: 1, name: "bench.example" };
const key = async (selector, algorithm) => (await generateKeyPair({ domain: DOMAIN.name, selector, algorithm })).value;

function memoryResolver(zone) {
  return {
    queriesSent: 0,
    async query(name) {
      this.queriesSent++;
      const v = zone.get(name.toLowerCase());
      return v ? { kind: "records", records: [v], ttl: 300, chain: [] } : { kind: "nxdomain", chain: [] };
    },
  };
}

/** A Services whose db answers the one SELECT with `rows`; statements are only built, never run. */
function fakeServices(rows) {
  const db = createDb({});
  const select = () => ({ from: () => ({ where: () => ({ orderBy: () => ({ limit: async () => rows }) }) }) });
  return { db: new Proxy(db, { get: (t, p) => (p === "select" ? select : t[p]) }) };
}

export default async function run() {
  const google = await key("google", "rsa-2048");
  const s1 = await key("selector1", "rsa-2048");
  const ed = await key("ed1", "ed25519");
  const zone = new Map([
    [`google._domainkey.${DOMAIN.name}`, google.dns.value],
    [`selector1._domainkey.${DOMAIN.name}`, s1.dns.value],
    [`ed1._domainkey.${DOMAIN.name}`, ed.dns.value],
  ]);
  const hints = { mxHosts: ["aspmx.l.google.com"], spfIncludes: ["_spf.google.com", "spf.protection.outlook.com"] };
  const now = new Date();
  const known = (sel, k) => ({
    id: sel.length,
    domainId: 1,
    selector: sel,
    source: "discovered",
    status: "active",
    health: "pass",
    provider: null,
    delegatedTo: null,
    record: k.dns.value,
    keyType: "rsa",
    keyBits: 2048,
    keyFingerprint: k.fingerprint,
    keyTesting: false,
    keyFirstSeenAt: now,
    rotations: 0,
    issues: [],
    firstSeenAt: now,
    lastSeenAt: now,
    missingSince: null,
    lastReportAt: null,
    staleNotifiedAt: null,
    createdAt: now,
  });
  for (const [label, rows] of [
    ["first check (nothing known)", []],
    ["steady state (3 known, unchanged)", [known("google", google), known("selector1", s1), { ...known("ed1", ed), keyType: "ed25519", keyBits: 256 }]],
  ]) {
    const svc = fakeServices(rows);
    let out;
    for (let i = 0; i < 20; i++) out = await refreshDkimInventory(svc, DOMAIN, memoryResolver(zone), hints, now); // warm-up
    const n = 300;
    const resolver = memoryResolver(zone);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) out = await refreshDkimInventory(svc, DOMAIN, resolver, hints, now);
    const ms = (performance.now() - t0) / n;
    console.log(
      `${label}: ${ms.toFixed(3)} ms CPU per domain; ${resolver.queriesSent / n} DNS queries; ${out.statements.length} statements, ${out.events.length} events; posture active=${out.posture?.active}`,
    );
  }
}
