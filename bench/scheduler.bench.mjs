// Issue 5: the every-minute tick with 10,000 due domains (claim + enqueue time, D1 rows read per domain
// from the claim statement's meta) and a check consumer's CPU per domain with DNS answered from memory.
// Runs in-process: wrangler's platform proxy (local D1 and queue producers), the TypeScript services imported via tsx.
import { readFileSync, rmSync } from "node:fs";
import { getPlatformProxy } from "wrangler";

const DOMAINS = 10_000;

async function setup() {
  // wrangler's platform proxy: the D1 database and queue producers of wrangler.toml, in a throw-away local state folder.
  const persist = ".wrangler/bench-state-scheduler";
  rmSync(persist, { recursive: true, force: true });
  const proxy = await getPlatformProxy({ configPath: "wrangler.toml", persist: { path: persist } });
  const db = proxy.env.DB;
  const migration = readFileSync(new URL("../migrations/0000_init.sql", import.meta.url), "utf8");
  for (const stmt of migration.split("--> statement-breakpoint")) if (stmt.trim()) await db.prepare(stmt).run();
  return { mf: proxy, db, checks: proxy.env.CHECKS_QUEUE, deliveries: proxy.env.DELIVERIES_QUEUE };
}

async function seed(db, n, dueAt) {
  await db.prepare("INSERT INTO teams (name, plan, owner_email, created_at) VALUES ('bench', 'enterprise', 'b@example.com', 0)").run();
  // One recursive INSERT ... SELECT: 10,000 verified due domains (and as many not due, to show the index keeps reads constant).
  await db
    .prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
    INSERT INTO domains (team_id, name, verified, verification_token, report_token, next_check_at, created_at)
    SELECT 1, 'd' || i || '.example', 1, 't', 'r' || i, ?2 + i, 0 FROM n`)
    .bind(n, dueAt)
    .run();
  await db
    .prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
    INSERT INTO domains (team_id, name, verified, verification_token, report_token, next_check_at, created_at)
    SELECT 1, 'later' || i || '.example', 1, 't', 'l' || i, ?2, 0 FROM n`)
    .bind(n, dueAt + 10 * 86_400_000)
    .run();
}

export default async function run() {
  const { mf, db, checks, deliveries } = await setup();
  try {
    const { createServices } = await import("../src/services.ts");
    const { runDueChecks } = await import("../src/services/checks/due.ts");
    const now = Date.now();
    await seed(db, DOMAINS, now - 3_600_000);
    let sendBatchCalls = 0;
    const queue = {
      send: (b) => checks.send(b),
      sendBatch: (m) => {
        sendBatchCalls++;
        return checks.sendBatch(m);
      },
    };
    const env = { DB: db, CHECKS_QUEUE: queue, DELIVERIES_QUEUE: deliveries, RATE_LIMITER: null };
    const svc = createServices(env, { clock: { now: () => new Date(now) } });

    const t0 = performance.now();
    const out = await runDueChecks(svc);
    const ms = performance.now() - t0;
    console.log(
      `tick: claimed ${out.claimed} and enqueued ${out.enqueued} due domains of ${2 * DOMAINS} in ${ms.toFixed(0)} ms ` +
        `(${((ms / out.claimed) * 1000).toFixed(1)} µs/domain, ${sendBatchCalls} sendBatch calls)`,
    );
    console.log(`D1 rows read by the claim statements: ${out.rowsRead} (${(out.rowsRead / out.claimed).toFixed(2)} per claimed domain)`);
    const again = await runDueChecks(svc);
    console.log(`second tick at the same instant: claimed ${again.claimed}, rows read ${again.rowsRead}`);

    await consumerCpu(svc);
  } finally {
    await mf.dispose();
    rmSync(".wrangler/bench-state-scheduler", { recursive: true, force: true });
  }
}

/** CPU of runCheck per domain: an in-memory resolver (no network), D1 in Miniflare. */
async function consumerCpu(base) {
  const { runCheck } = await import("../src/services/checks/run-check.ts");
  const { MemoryResolver } = await memoryResolver();
  const N = 200;
  const domainIds = (await base.db.$client.prepare("SELECT id FROM domains ORDER BY id LIMIT ?").bind(N).all()).results.map((r) => r.id);
  const svc = { ...base, createResolver: () => new MemoryResolver(), fetch: async () => new Response("", { status: 404 }) };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const [i, id] of domainIds.entries()) await runCheck(svc, { domain_id: id, check_id: `chk_bench_${i}`, trigger: "scheduled" });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `consumer: ${N} checks, ${(wall / N).toFixed(1)} ms wall and ${((cpu.user + cpu.system) / 1000 / N).toFixed(1)} ms CPU per domain ` +
      "(node process: posture + DKIM inventory + diff + batch build; the D1 writes run in Miniflare's workerd)",
  );
}

async function memoryResolver() {
  class MemoryResolver {
    queriesSent = 0;
    async query(name, type) {
      this.queriesSent++;
      const d = name.replace(/^_dmarc\./, "");
      if (type === "TXT" && name.startsWith("_dmarc.") && /^d\d+\.example$/.test(d))
        return { kind: "records", records: ["v=DMARC1; p=reject; rua=mailto:r@example.org"], ttl: 300, chain: [] };
      if (type === "TXT" && /^d\d+\.example$/.test(name)) return { kind: "records", records: ["v=spf1 ip4:192.0.2.0/24 -all"], ttl: 300, chain: [] };
      if (type === "MX" && /^d\d+\.example$/.test(name)) return { kind: "records", records: [{ preference: 10, exchange: `mx.${name}` }], ttl: 300, chain: [] };
      if (type === "A" && name.startsWith("mx.")) return { kind: "records", records: ["192.0.2.10"], ttl: 300, chain: [] };
      return { kind: "nxdomain", chain: [] };
    }
  }
  return { MemoryResolver };
}
