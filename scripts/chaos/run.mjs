// `npm run test:chaos`: the reliability suite (docs/testing.md, "Chaos suite"). Drives the real service
// through `wrangler dev` with a local DoH server that injects faults and local webhook receivers, then
// runs the crash-in-the-middle tests in the Workers pool. Prints a summary table (cases, failures,
// time) and exits non-zero on any failure. CHAOS_ONLY=fuzz,tenancy,dns,webhooks,crash runs a subset;
// CHAOS_SEED fixes the fuzz seed (printed on every run).
import { spawnSync } from "node:child_process";
import { runDnsFaults } from "./dns-faults.mjs";
import { teamFixtures, adminFixtures } from "./fixtures.mjs";
import { runFuzz } from "./fuzz.mjs";
import { call, createTally, printSummary } from "./lib.mjs";
import { checkNoDuplicates, runReceiverChaos } from "./receivers.mjs";
import { runTenancy } from "./tenancy.mjs";
import { startWorld } from "./world.mjs";

const started = performance.now();
const only = new Set((process.env.CHAOS_ONLY ?? "fuzz,tenancy,dns,webhooks,crash").split(","));
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`chaos: seed ${seed} (CHAOS_SEED=${seed} repeats this run)`);
const tally = createTally();
const setup = tally.section("setup");

const world = await startWorld({ port: 8890 });
try {
  const teamDoc = (await call(world.base, "GET", "/api/v1/openapi.json")).json;
  const operatorDoc = (await call(world.base, "GET", "/admin/openapi.json", { token: world.admin })).json;
  setup.check(teamDoc?.openapi?.startsWith("3.1"), "the team OpenAPI document is served");
  setup.check(operatorDoc?.openapi?.startsWith("3.1"), "the operator OpenAPI document is served");
  // Fixture teams: the fuzz (full and read-only on their own teams, so each has its own rate limit),
  // the tenancy owner and intruder.
  const needFuzz = only.has("fuzz");
  const needTenancy = only.has("tenancy");
  const [fuzzFull, fuzzRo, owner, intruder] = await Promise.all([world.team(), world.team(), world.team(), world.team()]);
  const [idsFull, idsRo, idsOwner, idsAdmin] = await Promise.all([
    needFuzz ? teamFixtures(world, fuzzFull, "fuzz-full.test", "192.0.2.1") : null,
    needFuzz ? teamFixtures(world, fuzzRo, "fuzz-ro.test", "192.0.2.2") : null,
    needTenancy ? teamFixtures(world, owner, "owner.test", "192.0.2.3") : null,
    needFuzz ? adminFixtures(world) : null,
  ]);
  setup.done();

  // The DNS matrix and receiver chaos run on their own teams, overlapping with the fuzz: receiver
  // cases wait on real time (a receiver slow past 10 s), checks on the queue's batching.
  const side = [];
  if (only.has("webhooks")) {
    const s = tally.section("webhook receivers");
    side.push(runReceiverChaos({ world, section: s }).then(() => s.done()));
  }
  let fuzzDone = () => {};
  const quiet = new Promise((r) => (fuzzDone = r));
  if (only.has("dns")) {
    const s = tally.section("DNS fault matrix");
    side.push(runDnsFaults({ world, section: s, quiet }).then(() => s.done()));
  }

  if (needFuzz) {
    const s = tally.section("schema fuzz");
    const stats = await runFuzz({
      base: world.base,
      teamDoc,
      operatorDoc,
      contexts: [
        { scope: "full", token: fuzzFull.full, ids: idsFull },
        { scope: "read_only", token: fuzzRo.ro, ids: idsRo },
      ],
      admin: { token: world.admin, ids: idsAdmin },
      ingestSecret: world.ingestSecret,
      seed,
      section: s,
      serverLog: world.dev.log,
    });
    s.done();
    console.log(`fuzz: ${stats.requests} requests, by status ${JSON.stringify(stats.byStatus)}`);
  }
  if (needTenancy) {
    const s = tally.section("tenancy sweep");
    await runTenancy({ base: world.base, doc: teamDoc, owner: { ...owner, ids: idsOwner }, intruder, seed, section: s });
    s.done();
  }
  fuzzDone();
  const results = await Promise.allSettled(side);
  for (const r of results) if (r.status === "rejected") setup.fail("a section crashed", r.reason?.stack ?? String(r.reason));
  if (only.has("webhooks")) checkNoDuplicates(world.receiver, tally.section("no duplicate deliveries"));
} catch (error) {
  setup.fail("chaos run crashed", error instanceof Error ? error.stack : String(error));
  console.error(world.dev.log().slice(-4000));
} finally {
  await world.stop();
}

if (only.has("crash")) {
  // Crash in the middle needs a failing D1 batch, which wrangler dev cannot inject without test hooks
  // in src: it runs in the Workers pool, through the real queue export (test/chaos/).
  const s = tally.section("crash mid-consumer");
  const run = spawnSync("npx", ["vitest", "run", "--project", "workers", "--reporter", "json", "test/chaos"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  let report = null;
  try {
    report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{")));
  } catch {
    s.fail("vitest report unreadable", `${run.stderr.slice(-1500)}`);
  }
  for (const file of report?.testResults ?? []) {
    for (const t of file.assertionResults ?? []) s.check(t.status === "passed", t.fullName, (t.failureMessages ?? []).join("\n").slice(0, 600));
  }
  if (report && report.numTotalTests === 0) s.fail("no crash tests ran");
  s.done();
}

const failures = printSummary(tally, performance.now() - started);
process.exit(failures === 0 ? 0 : 1);
