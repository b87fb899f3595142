// Issue 33 §1: what auditing a write costs, and how long verify takes. The same write route (PATCH
// /api/v1/webhooks/{id}, an audited change: its batch holds the entry, then the entry is sealed) on two
// `wrangler dev` servers: this code, and a copy whose commit() replaces each audit INSERT with `SELECT 1`
// and does not seal (everything else identical: the same batch positions, the same verbs). Alternating
// rounds, concurrency 8; p50, p99 and the ratio. Then verify of a team's 10,000 sealed entries, in ms
// (docs/decisions.md D231; the entries are inserted with wrangler d1 execute and sealed by the minute cron).
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { startDevServer } from "./lib/dev-server.mjs";
import { median } from "./lib/duel.mjs";
import { alternateLoads, fmt, load } from "./lib/load.mjs";

const PORT_AUDIT = 8960;
const PORT_PLAIN = 8962;
const ROUNDS = 3;
const TEAMS = 8;
const VERIFY_ENTRIES = 10_000;
const COPY = ".wrangler/bench-noaudit";

/** The variant without the audit statement and the seal: src copied, commit.ts patched, its own wrangler config. */
function buildPlainVariant() {
  rmSync(COPY, { recursive: true, force: true });
  mkdirSync(COPY, { recursive: true });
  cpSync("src", `${COPY}/src`, { recursive: true, filter: (p) => !p.endsWith(".test.ts") });
  const commitPath = `${COPY}/src/services/commit.ts`;
  let commit = readFileSync(commitPath, "utf8");
  const batch = "const results = await svc.db.batch(statements);";
  const seal = "await sealAfterCommit(svc, statements);";
  if (!commit.includes(batch) || !commit.includes(seal)) throw new Error("commit.ts changed: update the bench's patch");
  commit = commit
    .replace(batch, "const results = await svc.db.batch(statements.map((s) => withoutAudit(svc, s)) as unknown as T);")
    .replace(seal, "")
    .concat(`
import { is as isEntity, sql as rawSql } from "drizzle-orm";
import { SQLiteRaw as RawStatement } from "drizzle-orm/sqlite-core/query-builders/raw";
/** Bench variant: an audit INSERT becomes SELECT 1 (kept in place, so result positions stay). */
function withoutAudit(svc: Services, s: Statement): Statement {
  if (!isEntity(s, RawStatement) || !(s as RawStatement<unknown>).getQuery().sql.trimStart().startsWith("INSERT INTO audit_entries")) return s;
  const one = svc.db.run(rawSql\`SELECT 1\`) as unknown as { stmt?: D1PreparedStatement };
  one.stmt = svc.db.$client.prepare("SELECT 1");
  return one as unknown as Statement;
}
`);
  writeFileSync(commitPath, commit);
  const toml = readFileSync("wrangler.toml", "utf8")
    .replace('directory = "./data"', 'directory = "../../data"')
    .replace('migrations_dir = "migrations"', 'migrations_dir = "../../migrations"');
  writeFileSync(`${COPY}/wrangler.toml`, toml);
  return `${COPY}/wrangler.toml`;
}

async function prepare(server) {
  const teams = await Promise.all(Array.from({ length: TEAMS }, () => server.createTeam("enterprise")));
  const targets = [];
  for (const t of teams) {
    const token = t.tokens.full.token;
    const res = await fetch(`${server.url}/api/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["*"] }),
    });
    if (res.status !== 201) throw new Error(`webhook: ${res.status} ${await res.text()}`);
    targets.push({ token, id: (await res.json()).data.id, teamId: t.team.id });
  }
  return targets;
}

const patch = (server, targets) => (i) => {
  const t = targets[i % targets.length];
  return fetch(`${server.url}/api/v1/webhooks/${t.id}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
    body: JSON.stringify({ description: `bench ${i}` }),
  });
};

/** 10,000 unsealed entries for one team, inserted with wrangler d1 execute, then sealed by the minute cron. */
async function verifyTiming(server) {
  const team = await server.createTeam("enterprise");
  const token = team.tokens.full.token;
  const auth = { headers: { authorization: `Bearer ${token}` } };
  const verify = async () => (await (await fetch(`${server.url}/api/v1/audit/verify`, auth)).json()).data;
  const start = (await verify()).head.sealed_seq + (await verify()).unsealed;
  const rows = [];
  for (let i = 1; i <= VERIFY_ENTRIES; i++) {
    rows.push(
      `(${team.team.id}, ${start + i}, ${Date.now() - (VERIFY_ENTRIES - i)}, 'token', '1', 'token bench (eam_bench)', 'api', 'webhook_endpoint.update', 'webhook_endpoint', '${i}', 'endpoint http://127.0.0.1:9/hook: description changed', '203.0.113.${i % 250}', 'bench/1')`,
    );
  }
  const sqlFile = `${COPY}/entries.sql`;
  const chunks = [];
  for (let i = 0; i < rows.length; i += 100)
    chunks.push(
      `INSERT INTO audit_entries (team_id, seq, at, actor_kind, actor_id, actor_label, face, verb, target_type, target_id, summary, ip, user_agent) VALUES ${rows.slice(i, i + 100).join(",\n")};`,
    );
  writeFileSync(sqlFile, chunks.join("\n"));
  server.d1({ file: sqlFile });
  const sealStarted = performance.now();
  for (let i = 0; i < 20; i++) {
    await fetch(`${server.url}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    if ((await verify()).unsealed === 0) break;
  }
  const sealMs = performance.now() - sealStarted;
  const times = [];
  let last = null;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    last = await verify();
    times.push(performance.now() - t0);
  }
  return { entries: last.checked, ok: last.ok, unsealed: last.unsealed, p50: median(times), max: Math.max(...times), sealMs };
}

export default async function run() {
  const config = buildPlainVariant();
  const vars = { WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64") };
  const audited = await startDevServer({ port: PORT_AUDIT, vars });
  const plain = await startDevServer({ port: PORT_PLAIN, vars, config });
  try {
    const a = await prepare(audited);
    const p = await prepare(plain);
    const opts = { total: 800, concurrency: 8 };
    const withAudit = () => load({ ...opts, request: patch(audited, a) });
    const without = () => load({ ...opts, request: patch(plain, p) });
    await load({ total: 200, concurrency: 8, request: patch(audited, a) }); // warm-up
    await load({ total: 200, concurrency: 8, request: patch(plain, p) });
    const [A, P] = await alternateLoads([withAudit, without], ROUNDS);
    console.log(`PATCH /api/v1/webhooks/{id}, ${TEAMS} teams, concurrency ${opts.concurrency}, ${ROUNDS} alternating rounds of ${opts.total}`);
    console.log(`without audit (SELECT 1 in its place, no seal)  ${fmt(P)}`);
    console.log(`with audit (entry in the batch, then sealed)    ${fmt(A)}`);
    console.log(`ratio with/without: p50 ${(A.p50 / P.p50).toFixed(2)}x, p99 ${(A.p99 / P.p99).toFixed(2)}x, throughput ${(A.rps / P.rps).toFixed(2)}x`);
    const check = await (await fetch(`${audited.url}/api/v1/audit/verify`, { headers: { authorization: `Bearer ${a[0].token}` } })).json();
    console.log(`a benchmarked team's chain after the load: ok ${check.data.ok}, ${check.data.checked} entries checked, ${check.data.unsealed} unsealed`);
    const v = await verifyTiming(audited);
    console.log(
      `verify of ${v.entries.toLocaleString("en")} sealed entries: ok ${v.ok}, p50 ${v.p50.toFixed(0)} ms, max ${v.max.toFixed(0)} ms (5 runs; sealing them by the minute cron took ${(v.sealMs / 1000).toFixed(1)} s)`,
    );
  } finally {
    await audited.stop();
    await plain.stop();
    rmSync(COPY, { recursive: true, force: true });
  }
}
