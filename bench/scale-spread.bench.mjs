// Issue 19, benchmark 2: the same ingest work (SPREAD_REPORTS reports of 200 rows) once spread over
// 100 domains and once into one domain, through the real HTTP ingestion route with 16 reports in
// flight; throughput in rows/s and reports/s for each. With one D1 every report's rows go through the
// one database writer whatever the domain; with one object per domain, writes to different domains
// run in different objects. Local wrangler dev runs every object and the Worker in one workerd
// process on a 2-core machine, so locally the spread side is bounded by those 2 cores (the parsing
// and the HTTP handling share them), not by the objects. Both trees (bench/lib/scale-side.mjs).
import { fileURLToPath } from "node:url";
import { isChildSide, reportSide, runBeforeSide, serverWithDomains, timeGet } from "./lib/scale-side.mjs";
import { pool, postReport, seriesReport, signedBody } from "./lib/scale-data.mjs";

const DOMAINS = 100;
const REPORTS = Number(process.env.SPREAD_REPORTS ?? 1000);
const PER_REPORT = 200;
const IN_FLIGHT = 16;

async function ingest(jobs) {
  const t0 = performance.now();
  await pool(jobs, IN_FLIGHT);
  return (performance.now() - t0) / 1000;
}

async function side(port) {
  const { server, token, domains } = await serverWithDomains(port, DOMAINS + 1, "spread");
  try {
    const one = domains[DOMAINS];
    // Bodies are prepared first so that the timed part is the server's work, not the generator's.
    const spreadBodies = Array.from({ length: REPORTS }, (_, n) => {
      const d = domains[n % DOMAINS];
      return signedBody(d.address, seriesReport(d.name, Math.floor(n / DOMAINS), PER_REPORT, { tag: "spread" }).xml);
    });
    const oneBodies = Array.from({ length: REPORTS }, (_, n) => signedBody(one.address, seriesReport(one.name, n, PER_REPORT, { tag: "one" }).xml));
    // Alternating order would need twice the data; one domain goes first, so any warm-up favours the spread side's peer.
    const oneS = await ingest(oneBodies.map((b) => () => postReport(server.url, b)));
    const spreadS = await ingest(spreadBodies.map((b) => () => postReport(server.url, b)));
    const check = await timeGet(server.url, token, `/api/v1/domains/${one.id}/dmarc?days=365`, 1);
    if (check.body.data.summary.reports !== REPORTS) throw new Error(`one domain holds ${check.body.data.summary.reports} reports, sent ${REPORTS}`);
    const rows = REPORTS * PER_REPORT;
    const result = {
      one: { rowsPerSecond: rows / oneS, reportsPerSecond: REPORTS / oneS },
      spread: { rowsPerSecond: rows / spreadS, reportsPerSecond: REPORTS / spreadS },
    };
    console.log(`  one domain ${oneS.toFixed(1)} s, ${DOMAINS} domains ${spreadS.toFixed(1)} s`);
    return result;
  } finally {
    await server.stop();
  }
}

export default async function run() {
  if (isChildSide()) return reportSide(await side(8996));
  console.log(`${REPORTS} reports of ${PER_REPORT} rows (${(REPORTS * PER_REPORT).toLocaleString("en")} rows), ${IN_FLIGHT} in flight; this tree:`);
  const after = await side(8994);
  console.log("before (per-domain objects not yet in place):");
  const before = runBeforeSide(fileURLToPath(import.meta.url));
  const f = (x) => (x === undefined ? "-" : x.toFixed(0));
  console.log("\n| tree | one domain rows/s (reports/s) | 100 domains rows/s (reports/s) | spread / one |");
  console.log("|---|---|---|---|");
  for (const [name, s] of [
    ["before", before],
    ["now", after],
  ]) {
    if (!s) continue;
    console.log(
      `| ${name} | ${f(s.one.rowsPerSecond)} (${f(s.one.reportsPerSecond)}) | ${f(s.spread.rowsPerSecond)} (${f(s.spread.reportsPerSecond)}) | ${(s.spread.rowsPerSecond / s.one.rowsPerSecond).toFixed(2)}x |`,
    );
  }
  if (before)
    console.log(
      `now / before: one domain ${(after.one.rowsPerSecond / before.one.rowsPerSecond).toFixed(2)}x, 100 domains ${(after.spread.rowsPerSecond / before.spread.rowsPerSecond).toFixed(2)}x`,
    );
}

if (isChildSide()) await run();
