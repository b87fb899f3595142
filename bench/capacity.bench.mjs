// Issue 19, benchmark 3: a capacity model from measured bytes (docs/capacity.md is written from its
// output). Isolated `wrangler dev` on port 8998 with a local DNS-over-HTTPS server (no delay) serving
// CAP_DOMAINS realistic domains (SPF with an include, MX, DMARC, DKIM, TLS-RPT) and a local webhook
// receiver; everything goes through the real API, queue and ingestion route:
//   1. domains added and verified through the API (the verify queues the first check);
//   2. QUIET_ROUNDS check rounds with no DNS change (what a check writes when nothing changed), then
//      DRIFT_ROUNDS rounds in which one domain in five changes its SPF record (diff, drift alert,
//      dns.record.changed event, webhook deliveries);
//   3. DMARC reports for REPORT_DAYS days from 3 reporters per domain (the D1 side: daily summaries);
//   4. one large sender: LARGE_DAYS days of 10,000 rows (20 reporters x 500 rows, from a day's pool of
//      2,500 sending addresses), 40 to 40+LARGE_DAYS days old, in its own report object.
// After each stage the local D1 file is copied with VACUUM INTO and measured (page_count * page_size,
// dbstat per table with its indexes). The 30-day posture retention is applied to a copy by SQL (what
// src/services/checks/retention.ts does) to measure a check without its posture JSON; the large
// sender's object file is copied and its own daily maintenance (retention and 30-day rollup) is run on
// the copy through drizzle, then measured again. The model multiplies these bytes by each plan's check
// interval and retention (src/lib/plans.ts) and divides 10 GB by the result.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDevServer } from "./lib/dev-server.mjs";
import { startDohServer } from "./lib/doh-server.mjs";
import { INGEST_SECRET, pool, postReport, seriesReport, signedBody } from "./lib/scale-data.mjs";
import { counts, d1File, largestObjectFile, measure, mutate, storageOver, vacuumCopy } from "./lib/sqlite-size.mjs";
import { isChildSide, reportSide, runBeforeSide } from "./lib/scale-side.mjs";

const N = Number(process.env.CAP_DOMAINS ?? 50);
const QUIET_ROUNDS = 3;
const DRIFT_ROUNDS = 3;
const REPORT_DAYS = 5;
const REPORTERS_PER_DAY = 3;
const ROWS_PER_SMALL_REPORT = 20;
const LARGE_DAYS = Number(process.env.CAP_LARGE_DAYS ?? 3);
const LARGE_ROWS_PER_DAY = 10_000;
const GB10 = 10 * 1024 ** 3;
const CHECK_TABLES = ["checks", "diffs", "alerts", "events", "deliveries"];
const REPORT_TABLE = /^(legacy_)?(dmarc_|tls_)/;

async function receiver() {
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits++;
      res.writeHead(204).end();
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    hits: () => hits,
    close: () =>
      new Promise((r) => {
        server.close(r);
        server.closeAllConnections();
      }),
  };
}

function zoneFor(names) {
  const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const p = publicKey.export({ type: "spki", format: "der" }).toString("base64");
  const zone = {
    "_spf.google.com": { TXT: ["v=spf1 ip4:203.0.113.0/24 ~all"] },
    "mx.provider.example": { A: ["192.0.2.25"] },
  };
  names.forEach((name, i) => {
    zone[name] = { TXT: [`v=spf1 include:_spf.google.com ip4:198.51.100.${i % 250} -all`], MX: [{ preference: 10, exchange: "mx.provider.example" }] };
    zone[`_dmarc.${name}`] = { TXT: [] }; // filled once the report address is known
    zone[`google._domainkey.${name}`] = { TXT: [`v=DKIM1; k=rsa; p=${p}`] };
    zone[`_smtp._tls.${name}`] = { TXT: [`v=TLSRPTv1; rua=mailto:tls@${name}`] };
    zone[`_emailauth-verify.${name}`] = { TXT: [] }; // filled once the token is known
  });
  return zone;
}

async function until(what, test, timeoutMs = 180_000, log = () => "") {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Bytes of the whole file and of the check-related and report tables, with their rows. */
function snapshot(persist, dir, name) {
  const m = measure(vacuumCopy(d1File(persist), join(dir, `${name}.sqlite`)));
  const sum = (pred) =>
    Object.entries(m.tables)
      .filter(([t]) => pred(t))
      .reduce((a, [, v]) => ({ rows: a.rows + v.rows, bytes: a.bytes + v.bytes }), { rows: 0, bytes: 0 });
  return { ...m, file: join(dir, `${name}.sqlite`), checkish: sum((t) => CHECK_TABLES.includes(t)), reports: sum((t) => REPORT_TABLE.test(t)) };
}

async function side(port) {
  const dir = mkdtempSync(join(tmpdir(), "capacity-"));
  const names = Array.from({ length: N }, (_, i) => `cap-${i}.example`);
  const zone = zoneFor([...names, "large-sender.example"]);
  const doh = await startDohServer({ zone, delayMs: 0 });
  const hook = await receiver();
  const server = await startDevServer({
    port,
    vars: {
      DMARC_INGEST_SECRET: INGEST_SECRET,
      REPORT_DOMAIN: "reports.bench",
      DOH_RESOLVERS: doh.url,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    },
  });
  const out = { n: N };
  try {
    const team = await server.createTeam("enterprise");
    const auth = { authorization: `Bearer ${team.tokens.full.token}`, "content-type": "application/json" };
    const api = async (path, init = {}) => {
      const res = await fetch(`${server.url}/api/v1${path}`, { ...init, headers: auth });
      const body = res.status === 204 ? null : await res.json();
      return { status: res.status, body };
    };
    const wh = await api("/webhooks", { method: "POST", body: JSON.stringify({ url: hook.url, events: ["*"] }) });
    if (wh.status !== 201) throw new Error(`webhook: ${wh.status} ${JSON.stringify(wh.body)}`);
    const db = d1File(server.persist);
    const s0 = snapshot(server.persist, dir, "s0");

    // 1. Domains, verified through DNS; the verification queues each domain's first check.
    const domains = [];
    for (const name of [...names, "large-sender.example"]) {
      const r = await api("/domains", { method: "POST", body: JSON.stringify({ name }) });
      if (r.status !== 201) throw new Error(`domain ${name}: ${r.status} ${JSON.stringify(r.body)}`);
      const d = r.body.data;
      zone[`_emailauth-verify.${name}`].TXT.push(d.verification.value);
      zone[`_dmarc.${name}`].TXT.push(`v=DMARC1; p=quarantine; rua=mailto:${d.dmarc_report_address}`);
      domains.push({ id: d.id, name, address: d.dmarc_report_address });
    }
    for (const d of domains) {
      const v = await api(`/domains/${d.id}/verify`, { method: "POST" });
      if (v.status !== 200 || !v.body.data.verified) throw new Error(`verify ${d.name}: ${v.status} ${JSON.stringify(v.body)}`);
    }
    const small = domains.slice(0, N);
    let expected = domains.length;
    await until("the first checks", () => counts(db, ["checks"]).checks >= expected, undefined, server.log);
    await new Promise((r) => setTimeout(r, 3000)); // the verification events' fan-out and deliveries settle
    const sV = snapshot(server.persist, dir, "sv");

    // 2. Check rounds: quiet, then with drift on one domain in five.
    const round = async (r, drift) => {
      if (drift) {
        for (const [i, d] of small.entries()) {
          if (i % 5 === r % 5) zone[d.name].TXT.splice(0, 1, `v=spf1 include:_spf.google.com ip4:198.51.100.${i % 250} ip4:192.0.2.${r} -all`);
        }
      }
      for (const d of small) {
        const c = await api(`/domains/${d.id}/check`, { method: "POST" });
        if (c.status !== 202) throw new Error(`check ${d.name}: ${c.status} ${JSON.stringify(c.body)}`);
      }
      expected += small.length;
      await until(`check round ${r}`, () => counts(db, ["checks"]).checks >= expected, undefined, server.log);
    };
    for (let r = 0; r < QUIET_ROUNDS; r++) await round(r, false);
    await new Promise((r) => setTimeout(r, 3000));
    const s1 = snapshot(server.persist, dir, "s1");
    for (let r = 0; r < DRIFT_ROUNDS; r++) await round(r, true);
    const drifts = DRIFT_ROUNDS * Math.ceil(N / 5);
    await until("webhook deliveries", () => counts(db, ["deliveries"]).deliveries > 0 && hook.hits() > 0, 60_000);
    await new Promise((r) => setTimeout(r, 3000)); // the last fan-outs and attempts settle
    const s2 = snapshot(server.persist, dir, "s2");

    // 3. Small domains' reports: REPORT_DAYS days from REPORTERS_PER_DAY reporters each.
    const jobs = [];
    for (const d of small)
      for (let day = 1; day <= REPORT_DAYS; day++)
        for (let k = 0; k < REPORTERS_PER_DAY; k++) {
          const n = day * REPORTERS_PER_DAY + k;
          jobs.push(() =>
            postReport(
              server.url,
              signedBody(d.address, seriesReport(d.name, n, ROWS_PER_SMALL_REPORT, { reporters: REPORTERS_PER_DAY, daysAgo: day, pool: 200 }).xml),
            ),
          );
        }
    await pool(jobs, 8);
    const s3 = snapshot(server.persist, dir, "s3");

    // The posture JSON retention on a copy: every check but each domain's latest loses its posture.
    const slim = vacuumCopy(s2.file, join(dir, "slim.sqlite"));
    mutate(slim, ["UPDATE checks SET posture = NULL WHERE id NOT IN (SELECT last_check_id FROM domains WHERE last_check_id IS NOT NULL)"]);
    const sSlim = measure(slim);

    const t = (snap, name) => snap.tables[name] ?? { rows: 0, bytes: 0, used: 0 };
    const per = (snap, name) => (t(snap, name).rows > 0 ? t(snap, name).used / t(snap, name).rows : 0);
    const checksV = t(sV, "checks").rows;
    const checks1 = t(s1, "checks").rows;
    const checks2 = t(s2, "checks").rows;
    const latest = domains.length; // each domain's latest check keeps its posture
    out.check = {
      withPosture: per(s2, "checks"),
      withoutPosture: (t(sSlim, "checks").used - latest * per(s2, "checks")) / (checks2 - latest),
    };
    // Rows a check adds to each table when nothing changed (the verify and quiet rounds), and what one
    // DNS change adds beyond that (the drift rounds), with the bytes of one row of each.
    out.perCheck = {};
    out.perChange = {};
    out.rowBytes = {};
    for (const name of CHECK_TABLES.filter((x) => x !== "checks")) {
      // Quiet rounds only: the verification round also writes domain.verified and its deliveries.
      const quiet = (t(s1, name).rows - t(sV, name).rows) / (checks1 - checksV);
      out.perCheck[name] = quiet;
      out.perChange[name] = (t(s2, name).rows - t(s1, name).rows - quiet * (checks2 - checks1)) / drifts;
      out.rowBytes[name] = per(s2, name) || per(s3, name);
    }
    const notGrowing = (name) => CHECK_TABLES.includes(name) || REPORT_TABLE.test(name);
    const fixedUsed = (snap) =>
      Object.entries(snap.tables)
        .filter(([name]) => !notGrowing(name))
        .reduce((sum, [, v]) => sum + v.used, 0);
    out.domainFixed = (fixedUsed(s2) - fixedUsed(s0)) / domains.length;
    const reportUsed = (snap) =>
      Object.entries(snap.tables)
        .filter(([name]) => /^dmarc_(daily|reporter_days|rows|reports)$/.test(name))
        .reduce((sum, [, v]) => sum + v.used, 0);
    out.reportDay = { bytes: (reportUsed(s3) - reportUsed(s2)) / (N * REPORT_DAYS), reporters: REPORTERS_PER_DAY, rowsPerReport: ROWS_PER_SMALL_REPORT };
    out.reportTables = Object.fromEntries(
      Object.entries(s3.tables)
        .filter(([name, v]) => REPORT_TABLE.test(name) && v.rows > 0)
        .map(([name, v]) => [name, { rows: v.rows, used: v.used }]),
    );
    out.totals = { s0: s0.total, s1: s1.total, s2: s2.total, s3: s3.total, checks: checks2, drifts };
    out.hooks = hook.hits();

    // 4. The large sender's object (only where per-domain objects exist).
    out.large = await largeSender(server, domains[N], dir);
  } finally {
    await server.stop();
    await hook.close();
    await doh.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

async function largeSender(server, domain, dir) {
  const jobs = [];
  for (let day = 0; day < LARGE_DAYS; day++)
    for (let k = 0; k < LARGE_ROWS_PER_DAY / 500; k++) {
      const n = day * 100 + k;
      jobs.push(() =>
        postReport(
          server.url,
          signedBody(domain.address, seriesReport(domain.name, n, 500, { reporters: 20, daysAgo: 40 + day, pool: 2_500, tag: "large" }).xml),
        ),
      );
    }
  await pool(jobs, 4);
  let file;
  try {
    file = largestObjectFile(server.persist, "DomainStore");
  } catch {
    return null; // the tree before per-domain objects
  }
  const raw = measure(vacuumCopy(file, join(dir, "large.sqlite")));
  const rolled = join(dir, "large-rolled.sqlite");
  vacuumCopy(file, rolled);
  const { drizzle } = await import("drizzle-orm/durable-sqlite");
  const { maintain } = await import(join(process.cwd(), "src/durable-objects/domain-store/maintenance.ts"));
  const s = storageOver(rolled);
  let result;
  try {
    const db = drizzle(s.storage);
    for (;;) {
      result = maintain(db, 730, Date.now());
      if (!result.more) break;
    }
  } finally {
    s.close();
  }
  mutate(rolled, []);
  const after = measure(rolled);
  return { days: LARGE_DAYS, raw, after, maintenance: result };
}

const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const mbs = (b) => `${(b / 1024 ** 2).toFixed(1)} MB`;
const int = (x) => Math.round(x).toLocaleString("en");

/** The model: each plan's checks and retention over the measured bytes. */
function model(m) {
  const plans = [
    { plan: "starter", interval: 24, retention: 90 },
    { plan: "pro", interval: 6, retention: 365 },
    { plan: "enterprise", interval: 1, retention: 730 },
  ];
  const CHANGES_PER_MONTH = 2; // assumed: DNS changes that raise diffs, an alert and events
  const rowsOf = (perCheckChecks, changes, table) => perCheckChecks * m.perCheck[table] + changes * m.perChange[table];
  console.log(`\nMeasured (VACUUMed local D1, ${m.n} domains, ${m.totals.checks} checks, ${m.totals.drifts} DNS changes; used bytes, indexes included):`);
  console.log(`- fixed per domain (domain row, DKIM inventory, caches: every table but checks, changes and reports): ${int(m.domainFixed)} B`);
  console.log(`- a check with its posture JSON: ${int(m.check.withPosture)} B; without it (older than 30 days): ${int(m.check.withoutPosture)} B`);
  for (const name of Object.keys(m.perCheck)) {
    console.log(
      `- ${name}: ${int(m.rowBytes[name])} B a row; ${m.perCheck[name].toFixed(2)} rows per quiet check, ${m.perChange[name].toFixed(2)} more per DNS change`,
    );
  }
  console.log(
    `- reports in D1 per domain and day (${m.reportDay.reporters} reporters, ${m.reportDay.rowsPerReport} rows each): ${int(m.reportDay.bytes)} B (${JSON.stringify(m.reportTables)})`,
  );
  console.log(`- file: ${kb(m.totals.s0)} with one team, ${kb(m.totals.s2)} after the checks, ${kb(m.totals.s3)} after the reports`);
  console.log(
    `\nPer domain, kept as the plans keep it (checks 400 days, posture JSON 30 days, events and deliveries 30 days, summaries for the plan's retention; ${CHANGES_PER_MONTH} DNS changes a month):`,
  );
  console.log(
    "\n| plan | checks kept (with posture) | checks | events + deliveries | diffs + alerts | daily summaries | fixed | bytes per domain | domains per 10 GB D1 |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  const rows = [];
  for (const p of plans) {
    const perDay = 24 / p.interval;
    const kept = perDay * 400;
    const full = perDay * 30 + 1;
    const checks = full * m.check.withPosture + (kept - full) * m.check.withoutPosture;
    const month = perDay * 30;
    const events = rowsOf(month, CHANGES_PER_MONTH, "events") * m.rowBytes.events + rowsOf(month, CHANGES_PER_MONTH, "deliveries") * m.rowBytes.deliveries;
    const changes400 = (CHANGES_PER_MONTH * 400) / 30;
    const history = rowsOf(kept, changes400, "diffs") * m.rowBytes.diffs + rowsOf(kept, changes400, "alerts") * m.rowBytes.alerts;
    const reports = p.retention * m.reportDay.bytes;
    const total = m.domainFixed + checks + events + history + reports;
    rows.push({ ...p, total });
    console.log(
      `| ${p.plan} | ${int(kept)} (${int(full)}) | ${int(checks)} | ${int(events)} | ${int(history)} | ${int(reports)} | ${int(m.domainFixed)} | ${int(total)} | ${int(GB10 / total)} |`,
    );
  }
  const lean = m.domainFixed + m.check.withPosture + m.perChange.alerts * m.rowBytes.alerts;
  console.log(
    `\nOne million domains in one 10 GB D1 leave ${int(GB10 / 1e6)} B each. Keeping in D1 only the domain, its latest check with posture and its open alert (check history, diffs, events and daily summaries elsewhere): ${int(lean)} B per domain, ${int(GB10 / lean)} domains.`,
  );
  if (m.large) {
    const r = m.large.raw.tables;
    const a = m.large.after.tables;
    const rawRow = r.rows.used / r.rows.rows;
    const rolledPerDay = a.rows.rows / m.large.days;
    const rolledRow = a.rows.used / Math.max(1, a.rows.rows);
    const report = r.reports.used / r.reports.rows;
    const reportsPerDay = LARGE_ROWS_PER_DAY / 500;
    const year = 30 * LARGE_ROWS_PER_DAY * rawRow + 335 * rolledPerDay * rolledRow + 365 * reportsPerDay * report;
    console.log(
      `\nLarge sender object: ${int(r.rows.rows)} rows over ${m.large.days} days = ${int(rawRow)} B per row (indexes included), ${int(report)} B per report; the 30-day rollup leaves ${int(rolledPerDay)} rows a day (${(LARGE_ROWS_PER_DAY / rolledPerDay).toFixed(1)}x fewer) at ${int(rolledRow)} B.`,
    );
    console.log(
      `A year at ${int(LARGE_ROWS_PER_DAY)} rows a day: 30 days raw ${mbs(30 * LARGE_ROWS_PER_DAY * rawRow)} + 335 days rolled up ${mbs(335 * rolledPerDay * rolledRow)} + ${int(365 * reportsPerDay)} reports ${mbs(365 * reportsPerDay * report)} = ${mbs(year)} (an object holds 10 GB: ${(GB10 / year).toFixed(0)}x that); without the rollup ${mbs(365 * LARGE_ROWS_PER_DAY * rawRow)}.`,
    );
  }
  return rows;
}

export default async function run() {
  if (isChildSide()) return reportSide(await side(8999 - 2));
  const now = await side(8998);
  console.log("== this tree ==");
  const nowRows = model(now);
  if (process.env.CAP_BEFORE === "1") {
    const before = runBeforeSide(fileURLToPath(import.meta.url));
    if (before) {
      console.log("\n== before per-domain objects (report rows in D1) ==");
      const beforeRows = model(before);
      console.log("\n| plan | domains per 10 GB D1 before | now | ratio |\n|---|---|---|---|");
      for (const [i, r] of nowRows.entries())
        console.log(`| ${r.plan} | ${int(GB10 / beforeRows[i].total)} | ${int(GB10 / r.total)} | ${(beforeRows[i].total / r.total).toFixed(1)}x |`);
    }
  }
}

if (isChildSide()) await run();
