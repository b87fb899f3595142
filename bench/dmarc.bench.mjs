// Issue 7: DMARC report ingestion and analytics.
// 1. In-process (node): parseReport over a generated 100,000-record report, streaming: wall time and
//    peak heap/RSS of the parse+aggregate stage alone, garbage and the 44 MB XML buffer included.
// 0. First, the same work from gzip bytes in a child process whose V8 heap is capped at 128 MB
//    (bench/lib/heap-128.mjs): it completes or V8 aborts it; prints the live heap after GC.
// 2. End to end through `wrangler dev` on port 8804 (real workerd + local D1): POST the same report
//    gzipped as JSON {recipient, content_base64}; wall time, workerd peak RSS, D1 rows written.
// 3. A year of daily reports (365 × 200 sources) for one domain, then GET /dmarc?days=365.
// 1b. The peer: parseReport (strict decoding, full validation, aggregation) against a bare saxes pass
//    over the same bytes (streaming decode + saxes + the same minimal aggregation: messages summed
//    per source address), same process, alternating rounds; medians and the ratio (issue 14 item 5).
import { createHmac } from "node:crypto";
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { gzipSync } from "fflate";
import { SaxesParser } from "saxes";
import { startDevServer } from "./lib/dev-server.mjs";
import { d1 } from "./lib/scale-side.mjs";

const PORT = Number(process.env.DMARC_BENCH_PORT ?? 8804);
const SECRET = "bench-ingest-secret";
const DOMAIN = "bench-dmarc.example";
const enc = (s) => new TextEncoder().encode(s);
const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;

function record(i, domain, count) {
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const fail = i % 5 === 0;
  return `<record><row><source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated><disposition>none</disposition><dkim>${fail ? "fail" : "pass"}</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><dkim><domain>${domain}</domain><selector>s${i % 3}</selector><result>${fail ? "fail" : "pass"}</result></dkim><spf><domain>${domain}</domain><scope>mfrom</scope><result>pass</result></spf></auth_results></record>\n`;
}

function reportXml(n, domain, begin, reportId, org = "google.com") {
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?>\n<feedback><report_metadata><org_name>${org}</org_name><email>noreply-dmarc-support@${org}</email><report_id>${reportId}</report_id><date_range><begin>${begin}</begin><end>${begin + 86399}</end></date_range></report_metadata><policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published>\n`,
  ];
  for (let i = 0; i < n; i++) parts.push(record(i, domain, (i % 7) + 1));
  parts.push("</feedback>\n");
  return parts.join("");
}

async function inProcess(xml) {
  const { parseReport } = await import("../src/core/reports/index.ts");
  const bytes = enc(xml);
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  let at = 0;
  // Sampled as each 64 KB chunk is pulled, i.e. while parsing and aggregating.
  const stream = new ReadableStream({
    pull(c) {
      const m = process.memoryUsage();
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakRss = Math.max(peakRss, m.rss);
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, at + 65536));
      at += 65536;
    },
  });
  const t0 = performance.now();
  const r = await parseReport(stream);
  const ms = performance.now() - t0;
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  console.log(
    `in-process parseReport: ${r.value.totals.records} records, ${r.value.rows.length} rows, ${mb(bytes.length)} XML in ${ms.toFixed(0)} ms; heap +${mb(peakHeap - before.heapUsed)} over baseline (the XML buffer itself is ${mb(bytes.length)}), peak RSS ${mb(peakRss)}`,
  );
}

/** The peer: a bare saxes pass with the minimal aggregation (messages per source address), 64 KB chunks. */
function saxesPass(bytes) {
  const dec = new TextDecoder("utf-8", { fatal: true });
  const sax = new SaxesParser({});
  const perIp = new Map();
  let field = null;
  let ip = "";
  let text = "";
  sax.on("opentag", (t) => {
    if (t.name === "source_ip" || t.name === "count") {
      field = t.name;
      text = "";
    }
  });
  sax.on("text", (t) => {
    if (field !== null) text += t;
  });
  sax.on("closetag", (t) => {
    if (t.name === "source_ip") ip = text.trim();
    else if (t.name === "count") perIp.set(ip, (perIp.get(ip) ?? 0) + Number(text));
    field = null;
  });
  for (let i = 0; i < bytes.length; i += 65536) sax.write(dec.decode(bytes.subarray(i, i + 65536), { stream: true }));
  sax.write(dec.decode());
  sax.close();
  return perIp.size;
}

async function versusSaxes(bytes, rounds = 7) {
  const { parseReport } = await import("../src/core/reports/index.ts");
  const ours = [];
  const peer = [];
  let rows = 0;
  for (let i = 0; i < rounds; i++) {
    let t0 = performance.now();
    const r = await parseReport(bytes);
    ours.push(performance.now() - t0);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    rows = r.value.rows.length;
    t0 = performance.now();
    const sources = saxesPass(bytes);
    peer.push(performance.now() - t0);
    if (sources !== rows) throw new Error(`peer saw ${sources} sources, parseReport ${rows} rows`);
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const [m, p] = [median(ours), median(peer)];
  console.log(
    `parse+aggregate vs bare saxes pass, ${mb(bytes.length)} XML, ${rounds} alternating rounds: parseReport median ${m.toFixed(0)} ms (${(bytes.length / 1048576 / (m / 1000)).toFixed(0)} MB/s), saxes pass median ${p.toFixed(0)} ms (${(bytes.length / 1048576 / (p / 1000)).toFixed(0)} MB/s); speed ratio (saxes time / ours) ${(p / m).toFixed(2)}x`,
  );
}

/** Peak RSS (VmHWM) of the workerd processes started by this port's `wrangler dev`, from /proc (Linux only). */
function workerdPeak() {
  const procs = new Map();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const ppid = Number(
        readFileSync(`/proc/${pid}/stat`, "utf8")
          .replace(/^.*\) /s, "")
          .split(" ")[1],
      );
      procs.set(Number(pid), { cmd, ppid });
    } catch {
      /* process gone */
    }
  }
  const roots = [...procs].filter(([, p]) => p.cmd.includes("wrangler") && p.cmd.includes(`--port\0${PORT}`)).map(([pid]) => pid);
  const under = (pid) => {
    for (let p = procs.get(pid); p; p = procs.get(p.ppid)) if (roots.includes(p.ppid)) return true;
    return false;
  };
  let best = 0;
  for (const [pid, p] of procs) {
    if (!p.cmd.includes("workerd") || !under(pid)) continue;
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (hwm) best = Math.max(best, Number(hwm[1]) * 1024);
    } catch {
      /* process gone */
    }
  }
  return best;
}

async function postJson(server, payload) {
  const body = JSON.stringify(payload);
  const sig = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
  const t0 = performance.now();
  const res = await fetch(`${server.url}/api/webhooks/dmarc`, { method: "POST", headers: { "content-type": "application/json", "x-signature": sig }, body });
  return { res, ms: performance.now() - t0, text: await res.text() };
}

/** The 128 MB question, answered by V8 itself: a child process whose heap is capped at 128 MB. */
function underIsolateCap() {
  const child = spawnSync(
    process.execPath,
    ["--max-old-space-size=128", "--expose-gc", "--import", "tsx", new URL("./lib/heap-128.mjs", import.meta.url).pathname, "100000"],
    { encoding: "utf8" },
  );
  const out = (child.stdout + child.stderr).trim().split("\n").pop();
  console.log(child.status === 0 ? out : `FAILED under a 128 MB heap cap (exit ${child.status}): ${out}`);
}

export default async function run() {
  underIsolateCap();
  const day = Math.floor(Date.now() / 86_400_000) * 86_400 - 86_400;
  const xml = reportXml(100_000, DOMAIN, day, "bench-100k");
  await inProcess(xml);
  {
    const { generatedReport } = await import("../src/core/reports/test-fixtures.ts");
    await versusSaxes(new Uint8Array(await new Response(generatedReport(100_000).stream).arrayBuffer()));
  }
  if (process.env.DMARC_BENCH_IN_PROCESS === "1") return; // the parser figures only, no wrangler dev

  // DNS resolvers that refuse at once: analytics then names no sender (measured without DNS).
  const server = await startDevServer({
    port: PORT,
    vars: { DMARC_INGEST_SECRET: SECRET, REPORT_DOMAIN: "reports.bench", DOH_RESOLVERS: "http://127.0.0.1:9/dns-query" },
  });
  try {
    const team = await server.createTeam("enterprise");
    const token = team.tokens.full.token;
    const created = await fetch(`${server.url}/api/v1/domains`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: DOMAIN }),
    });
    const domain = (await created.json()).data;
    if (!domain?.dmarc_report_address) throw new Error(`domain: ${created.status}`);
    // Only a verified domain's address takes reports (docs/decisions.md D16); the bench has no DNS to verify it.
    d1(server.persist, `UPDATE domains SET verified = 1, verified_at = ${Date.now()} WHERE id = ${domain.id}`);
    const gz = gzipSync(enc(xml), { level: 6 });
    const idle = workerdPeak();
    const big = await postJson(server, { recipient: domain.dmarc_report_address, filename: "r.xml.gz", content_base64: Buffer.from(gz).toString("base64") });
    // The rows live in the domain's report object (docs/decisions.md D120); D1 holds the daily summary.
    const rows = d1(server.persist, `SELECT COUNT(*) AS days, SUM(messages) AS m FROM dmarc_daily WHERE domain_id = ${domain.id}`);
    console.log(
      `wrangler dev ingest of 100,000 records (${mb(xml.length)} XML, ${mb(gz.length)} gzip, JSON form): HTTP ${big.res.status} in ${big.ms.toFixed(0)} ms; workerd peak RSS ${mb(workerdPeak())} (before: ${mb(idle)}); D1 daily summary written: ${JSON.stringify(rows)}`,
    );
    if (big.res.status !== 202) console.log(big.text.slice(0, 300));

    // A year of daily reports, 200 sources each.
    const t0 = performance.now();
    for (let i = 1; i <= 365; i++) {
      const r = await postJson(server, {
        recipient: domain.dmarc_report_address,
        // Two reporters: one reporter's reports a day are capped (docs/limits.md), and all arrive today.
        content_base64: Buffer.from(gzipSync(enc(reportXml(200, DOMAIN, day - i * 86_400, `year-${i}`, i % 2 === 0 ? "google.com" : "yahoo.com")))).toString(
          "base64",
        ),
      });
      if (r.res.status !== 202) throw new Error(`year report ${i}: ${r.res.status} ${r.text}`);
    }
    console.log(
      `365 daily reports × 200 sources ingested in ${((performance.now() - t0) / 1000).toFixed(1)} s (${((performance.now() - t0) / 365).toFixed(0)} ms per report)`,
    );
    for (const days of [365, 365, 30]) {
      const q0 = performance.now();
      const res = await fetch(`${server.url}/api/v1/domains/${domain.id}/dmarc?days=${days}`, { headers: { authorization: `Bearer ${token}` } });
      const data = (await res.json()).data;
      console.log(
        `GET /dmarc?days=${days}: HTTP ${res.status} in ${(performance.now() - q0).toFixed(0)} ms; ${data?.summary?.reports} reports, ${data?.summary?.messages} messages, ${data?.sources_total} sources, rate ${data?.alignment?.rate}`,
      );
    }
    console.log(`D1 summary totals: ${JSON.stringify(d1(server.persist, "SELECT COUNT(*) AS days, SUM(messages) AS messages FROM dmarc_daily"))}`);
  } finally {
    await server.stop();
  }
}
