// Issue 19, benchmark 1: one domain filled to 10k, 100k and 1M stored DMARC rows through the real
// HTTP ingestion route (POST /api/webhooks/dmarc, signed JSON form, gzip), each report one reporter's
// day of 500 records from distinct sources (bench/lib/scale-data.mjs: 40 reporters, 50,000 sources
// reused across 360 days). At each size: the ingest rate of that stage (rows/s, 4 reports in flight)
// and the median of 5 GETs of the 365-day DMARC view and of the first page of /dmarc/sources.
// The same script runs against the tree before per-domain objects (bench/lib/scale-side.mjs) and
// prints both sides in one table. SCALE_OBJECT_SIZES=10000,100000 limits the sizes (1M takes longest).
import { fileURLToPath } from "node:url";
import { isChildSide, reportSide, runBeforeSide, serverWithDomains, timeGet } from "./lib/scale-side.mjs";
import { pool, postReport, seriesReport, signedBody } from "./lib/scale-data.mjs";

const SIZES = (process.env.SCALE_OBJECT_SIZES ?? "10000,100000,1000000").split(",").map(Number);
const PER_REPORT = 500;
const IN_FLIGHT = 4;

async function side(port) {
  const { server, token, domains } = await serverWithDomains(port, 1, "object");
  const [domain] = domains;
  const out = [];
  try {
    let rows = 0;
    let messages = 0;
    let n = 0;
    for (const size of SIZES) {
      const jobs = [];
      const stageRows = size - rows;
      for (; rows < size; rows += PER_REPORT, n++) {
        const k = n;
        jobs.push(async () => {
          const r = seriesReport(domain.name, k, PER_REPORT);
          messages += r.messages;
          await postReport(server.url, signedBody(domain.address, r.xml));
        });
      }
      const t0 = performance.now();
      await pool(jobs, IN_FLIGHT);
      const seconds = (performance.now() - t0) / 1000;
      const view = await timeGet(server.url, token, `/api/v1/domains/${domain.id}/dmarc?days=365`);
      const sources = await timeGet(server.url, token, `/api/v1/domains/${domain.id}/dmarc/sources?days=365`);
      const summary = view.body.data.summary;
      if (summary.messages !== messages || summary.reports !== n) {
        throw new Error(`totals differ: view says ${summary.reports} reports, ${summary.messages} messages; sent ${n}, ${messages}`);
      }
      out.push({ rows, reports: n, messages, rowsPerSecond: stageRows / seconds, viewMs: view.ms, sourcesMs: sources.ms, sources: sources.body.meta?.total });
      console.log(`  ${rows} rows: +${stageRows} in ${seconds.toFixed(1)} s; view ${view.ms.toFixed(0)} ms, sources ${sources.ms.toFixed(0)} ms`);
    }
  } finally {
    await server.stop();
  }
  return out;
}

function table(after, before) {
  const f = (x, d = 0) => (x === undefined ? "-" : x.toFixed(d));
  console.log("\n| rows | ingest rows/s (before / now) | GET /dmarc?days=365 ms (before / now) | /dmarc/sources page 1 ms (before / now) |");
  console.log("|---|---|---|---|");
  for (const a of after) {
    const b = before?.find((x) => x.rows === a.rows);
    const ratio = (x, y) => (x && y ? ` (${(x / y).toFixed(2)}x)` : "");
    console.log(
      `| ${a.rows.toLocaleString("en")} | ${f(b?.rowsPerSecond)} / ${f(a.rowsPerSecond)}${ratio(a.rowsPerSecond, b?.rowsPerSecond)} | ${f(b?.viewMs)} / ${f(a.viewMs)}${ratio(a.viewMs, b?.viewMs)} | ${f(b?.sourcesMs)} / ${f(a.sourcesMs)}${ratio(a.sourcesMs, b?.sourcesMs)} |`,
    );
  }
  console.log("(ratios: now / before; above 1 is faster ingest, but slower views)");
}

export default async function run() {
  if (isChildSide()) return reportSide(await side(8992));
  console.log(`one domain, reports of ${PER_REPORT} rows, ${IN_FLIGHT} in flight, sizes ${SIZES.join(", ")}; this tree:`);
  const after = await side(8990);
  console.log("before (per-domain objects not yet in place):");
  const before = runBeforeSide(fileURLToPath(import.meta.url));
  table(after, before);
}

if (isChildSide()) await run();
