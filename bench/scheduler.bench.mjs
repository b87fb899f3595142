// Issue 5: the every-minute tick with 10,000 due domains (claim + enqueue time, D1 rows read per domain
// from the claim statement's meta), in-process: wrangler's platform proxy (local D1 and queue producers),
// the TypeScript services imported via tsx. Then the check consumer end to end under `wrangler dev`: the
// real checks queue and consumer, the domain objects that keep the history (docs/decisions.md D134),
// DNS from a local DNS-over-HTTPS server without delay, beside a plain API read on the same server.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { getPlatformProxy } from "wrangler";
import { startDevServer } from "./lib/dev-server.mjs";
import { startDohServer } from "./lib/doh-server.mjs";
import { until, zoneFor } from "./lib/domain-zone.mjs";
import { counts, d1File, scalar } from "./lib/sqlite-size.mjs";

const DOMAINS = 10_000;

async function setup() {
  // wrangler's platform proxy: the D1 database and queue producers of wrangler.toml, in a throw-away local state folder.
  const persist = ".wrangler/bench-state-scheduler";
  rmSync(persist, { recursive: true, force: true });
  const proxy = await getPlatformProxy({ configPath: "wrangler.toml", persist: { path: persist } });
  const db = proxy.env.DB;
  // Every D1 migration in order, as `wrangler d1 migrations apply` would.
  const dir = new URL("../migrations/", import.meta.url);
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    const migration = readFileSync(new URL(file, dir), "utf8");
    for (const stmt of migration.split("--> statement-breakpoint")) if (stmt.trim()) await db.prepare(stmt).run();
  }
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
  } finally {
    await mf.dispose();
    rmSync(".wrangler/bench-state-scheduler", { recursive: true, force: true });
  }
  await consumer();
}

const CONSUMER_DOMAINS = Number(process.env.SCHED_CONSUMER_DOMAINS ?? 100);

/**
 * The checks consumer through the real queue: CONSUMER_DOMAINS verified domains, one manual check each
 * (POST /domains/{id}/check, as the tick's enqueue would), timed until D1 holds every check. A plain
 * API read on the same server (GET /domains/{id}: the token, the team's domain, its latest check; sequential)
 * is timed in the same run, so the ratio says what a check costs beyond a request's own on this machine.
 */
async function consumer() {
  const names = Array.from({ length: CONSUMER_DOMAINS }, (_, i) => `sched-${i}.example`);
  const zone = zoneFor(names);
  const doh = await startDohServer({ zone, delayMs: 0 });
  const server = await startDevServer({ port: 8996, vars: { DOH_RESOLVERS: doh.url, REPORT_DOMAIN: "reports.bench" } });
  try {
    const team = await server.createTeam("enterprise");
    const headers = { authorization: `Bearer ${team.tokens.full.token}`, "content-type": "application/json" };
    const api = async (path, method = "GET", body) => {
      const res = await fetch(`${server.url}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: res.status === 204 ? null : await res.json() };
    };
    const ids = [];
    for (const name of names) {
      const r = await api("/domains", "POST", { name });
      if (r.status !== 201) throw new Error(`domain ${name}: ${r.status} ${JSON.stringify(r.body)}`);
      zone[`_emailauth-verify.${name}`].TXT.push(r.body.data.verification.value);
      zone[`_dmarc.${name}`].TXT.push(`v=DMARC1; p=quarantine; rua=mailto:${r.body.data.dmarc_report_address}`);
      ids.push(r.body.data.id);
    }
    for (const id of ids) {
      const v = await api(`/domains/${id}/verify`, "POST");
      if (v.status !== 200) throw new Error(`verify ${id}: ${v.status} ${JSON.stringify(v.body)}`);
    }
    const db = d1File(server.persist);
    // Checks recorded: each stays in D1 as a guard row (wrangler dev runs no cron here to free it).
    const recorded = () => counts(db, ["checks"]).checks;
    await until("the first checks", async () => recorded() >= ids.length, 300_000, server.log);

    const bare = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await api(`/domains/${ids[i % ids.length]}`);
      bare.push(performance.now() - t);
    }
    const t0 = performance.now();
    for (const id of ids) {
      const c = await api(`/domains/${id}/check`, "POST");
      if (c.status !== 202) throw new Error(`check ${id}: ${c.status} ${JSON.stringify(c.body)}`);
    }
    await until("the checks", async () => recorded() >= 2 * ids.length, 300_000, server.log);
    const wall = performance.now() - t0;
    const perCheck = wall / ids.length;
    const bareMs = [...bare].sort((a, b) => a - b)[Math.floor(bare.length / 2)];
    console.log(
      `consumer: ${ids.length} checks through the real queue in ${(wall / 1000).toFixed(1)} s: ${(ids.length / (wall / 1000)).toFixed(1)} checks/s, ` +
        `${perCheck.toFixed(1)} ms a check (${Number(scalar(db, "SELECT AVG(queries) FROM checks")).toFixed(0)} DNS queries on average, the D1 batch, the copy into the domain's object)`,
    );
    console.log(`same server, GET /api/v1/domains/{id} p50: ${bareMs.toFixed(2)} ms; a check costs ${(perCheck / bareMs).toFixed(1)}x that read`);
  } finally {
    await server.stop();
    await doh.stop();
  }
}
