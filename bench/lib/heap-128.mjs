// Run by bench/dmarc.bench.mjs in a child process with `--max-old-space-size=128 --expose-gc`: the
// JavaScript side of ingesting a 100,000-record report under the Workers isolate's 128 MB. The report
// is gzipped while it is generated (as a reporter sends it), parsed from the gzip bytes like the
// ingestion route does, and turned into insert chunks ten at a time like src/services/dmarc/store.ts.
// If the heap ever needed more than 128 MB, V8 would abort this process.
import { Gzip } from "fflate";

const { parseReport } = await import("../../src/core/reports/index.ts");
const { generatedReport } = await import("../../src/core/reports/test-fixtures.ts");
const n = Number(process.argv[2] ?? 100_000);
const mb = (b) => (b / 1048576).toFixed(1);

const parts = [];
const gz = new Gzip({ level: 6 }, (chunk) => parts.push(chunk));
const reader = generatedReport(n).stream.getReader();
for (;;) {
  const { done, value } = await reader.read();
  if (done) break;
  gz.push(value);
}
gz.push(new Uint8Array(0), true);
const body = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
let at = 0;
for (const p of parts) {
  body.set(p, at);
  at += p.length;
}
parts.length = 0;

global.gc();
const base = process.memoryUsage().heapUsed;
const t0 = performance.now();
const r = await parseReport(body);
if (!r.ok) throw new Error(r.error.message);
let chunks = 0;
let held = [];
let current = [];
let size = 0;
for (const row of r.value.rows) {
  const j = JSON.stringify([
    row.day,
    row.sourceIp,
    row.headerFrom,
    row.disposition,
    row.dmarcDkim,
    row.dmarcSpf,
    row.dkimDomain,
    row.dkimSelector,
    row.dkimResult,
    row.spfDomain,
    row.spfResult,
    row.messages,
  ]);
  if (size + j.length > 192 * 1024) {
    held.push(`[${current.join(",")}]`);
    current = [];
    size = 0;
    if (held.length === 10) {
      chunks += held.length;
      held = [];
    }
  }
  current.push(j);
  size += j.length + 1;
}
const ms = performance.now() - t0;
global.gc();
const live = process.memoryUsage().heapUsed - base;
console.log(
  `under a 128 MB V8 heap cap: ${r.value.totals.records} records from ${mb(body.length)} MB of gzip parsed and chunked (${chunks + held.length + 1} insert chunks) in ${ms.toFixed(0)} ms; live heap with every aggregated row held: ${mb(live)} MB`,
);
