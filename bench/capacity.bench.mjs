// Issue 19, benchmark 3: a capacity model from measured bytes (docs/capacity.md is written from its
// output). Isolated `wrangler dev` on port 8998 with a local DNS-over-HTTPS server (no delay) serving
// CAP_DOMAINS realistic domains (SPF with an include, MX, DMARC, DKIM, TLS-RPT) and a local webhook
// receiver taking every event; everything goes through the real API, queues and ingestion route:
//   1. domains added and verified through the API (the verify queues the first check);
//   2. QUIET_ROUNDS check rounds with no DNS change (what a check writes when nothing changed), then
//      DRIFT_ROUNDS rounds in which one domain in five changes its SPF record (diff, drift alert,
//      dns.record.changed and posture.changed events, their deliveries);
//   3. DMARC reports for REPORT_DAYS days from 3 reporters per domain (D1: the daily summaries);
//   4. one large sender: LARGE_DAYS days of 10,000 rows (20 reporters x 500 rows, from a day's pool of
//      2,500 sending addresses), 40 to 40+LARGE_DAYS days old, in its own domain object.
// After each stage the bench waits until the outboxes are empty (every check copied into its domain's
// object, every event fanned out into the team's object, every delivery settled), then measures three
// kinds of SQLite file, each as a VACUUMed copy with dbstat per table and its indexes:
//   - the local D1 (the control plane; docs/decisions.md D134), and the same copy "at rest", without the
//     checks' 20-minute guard rows (D135);
//   - every DomainStore object (check history and diffs; a copy with the posture JSON dropped gives a
//     check older than 30 days), and the large sender's, whose own maintenance (retention and the
//     30-day rollup) is run on a copy through drizzle;
//   - the team's TeamWebhooks object (the event and delivery log, docs/decisions.md D140).
// The model multiplies the bytes by each plan's check interval and retention (src/lib/plans.ts) and
// prints the domains one 10 GB D1 holds, and what a domain's and a team's objects hold.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RETENTION_MS as LOG_RETENTION_MS } from "../src/durable-objects/team-webhooks/maintenance.ts";
import { PLAN_LIMITS, PLANS as PLAN_NAMES, REPORT_LIMITS } from "../src/lib/plans.ts";
import { HISTORY_DAYS, POSTURE_DAYS } from "../src/lib/retention.ts";
import { RESOLVED_ALERT_DAYS } from "../src/services/alerts/retention.ts";
import { GUARD_MS } from "../src/services/checks/archive.ts";
import { SUMMARY_DAYS } from "../src/services/dmarc/retention.ts";
import { startDevServer } from "./lib/dev-server.mjs";
import { startDohServer } from "./lib/doh-server.mjs";
import { until, zoneFor } from "./lib/domain-zone.mjs";
import { INGEST_SECRET, pool, postReport, seriesReport, signedBody } from "./lib/scale-data.mjs";
import { counts, d1File, largestObjectFile, measure, mutate, objectFiles, scalar, storageOver, vacuumCopy } from "./lib/sqlite-size.mjs";

const N = Number(process.env.CAP_DOMAINS ?? 50);
const QUIET_ROUNDS = 3;
const DRIFT_ROUNDS = 3;
const REPORT_DAYS = 5;
const REPORTERS_PER_DAY = 3;
const ROWS_PER_SMALL_REPORT = 20;
const LARGE_DAYS = Number(process.env.CAP_LARGE_DAYS ?? 3);
const LARGE_ROWS_PER_DAY = 10_000;
const GB10 = 10 * 1024 ** 3;
/** Assumed: DNS changes a month that raise diffs, a drift alert and events. */
const CHANGES_PER_MONTH = 2;
/** Assumed: DKIM key rotations a year per domain (each retired key stays HISTORY_DAYS in D1). */
const ROTATIONS_PER_YEAR = 2;
/** What the plans keep and allow, from the code that enforces it (docs/limits.md). */
const GUARD_MINUTES = GUARD_MS / 60_000;
const LOG_DAYS = LOG_RETENTION_MS / 86_400_000;
const PLANS = PLAN_NAMES.map((plan) => ({
  plan,
  interval: PLAN_LIMITS[plan].check_interval_hours,
  retention: REPORT_LIMITS[plan].retention_days,
  domains: PLAN_LIMITS[plan].domains,
  endpoints: PLAN_LIMITS[plan].webhook_endpoints,
}));
/** D1 tables that grow with checks, changes and reports; every other table is a domain's fixed part. */
const GROWING = new Set(["checks", "diffs", "alerts", "events", "dmarc_daily", "dmarc_reporter_days", "dmarc_refusals"]);

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

const EMPTY = { rows: 0, bytes: 0, used: 0 };
/** The same table summed over several measured files. */
function sumTables(measured) {
  const out = {};
  for (const m of measured)
    for (const [name, v] of Object.entries(m.tables)) {
      out[name] ??= { ...EMPTY };
      out[name].rows += v.rows;
      out[name].bytes += v.bytes;
      out[name].used += v.used;
    }
  return out;
}

/** D1, every DomainStore object and the team's TeamWebhooks object, each as a VACUUMed copy. */
function snapshot(persist, dir, name) {
  const d1 = measure(vacuumCopy(d1File(persist), join(dir, `${name}-d1.sqlite`)));
  const domainFiles = objectFiles(persist, "DomainStore");
  const domain = sumTables(domainFiles.map((f, i) => measure(vacuumCopy(f, join(dir, `${name}-dom-${i}.sqlite`)))));
  const team = sumTables(objectFiles(persist, "TeamWebhooks").map((f, i) => measure(vacuumCopy(f, join(dir, `${name}-team-${i}.sqlite`)))));
  return { d1, domain, team, d1File: join(dir, `${name}-d1.sqlite`), domainFiles: domainFiles.map((_, i) => join(dir, `${name}-dom-${i}.sqlite`)) };
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
    const hookId = wh.body.data.id;
    const db = d1File(server.persist);
    const s0 = snapshot(server.persist, dir, "s0");

    /** Checks recorded so far: D1 keeps each as a guard row until the every-minute cron frees it, and wrangler dev runs no cron here. */
    const recorded = async () => counts(db, ["checks"]).checks;
    /** The D1 outboxes are empty: every check copied into its object, every event fanned out into the team's log. */
    let waiting = "";
    const settled = async () => {
      const c = counts(db, ["events", "diffs"]);
      const unarchived = Number(scalar(db, "SELECT COUNT(*) FROM checks WHERE archived_at IS NULL"));
      waiting = `outbox: ${c.events} events, ${c.diffs} diffs, ${unarchived} checks to copy`;
      return c.events + c.diffs + unarchived === 0;
    };
    const outboxes = () => until("the outboxes", settled, 60_000, () => waiting);
    /** Every delivery attempted (delivered rows carry the receiver's answer, so they are measured settled). */
    const delivered = async () => {
      const pending = (await api(`/webhooks/${hookId}/deliveries?status=pending&per_page=1`)).body.meta.total;
      waiting = `${pending} deliveries pending, ${hook.hits()} received`;
      return pending === 0;
    };

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
    await until("the first checks", async () => (await recorded()) >= expected, undefined, server.log);
    await outboxes();
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
      await until(`check round ${r}`, async () => (await recorded()) >= expected, undefined, server.log);
    };
    for (let r = 0; r < QUIET_ROUNDS; r++) await round(r, false);
    await outboxes();
    const s1 = snapshot(server.persist, dir, "s1");
    for (let r = 0; r < DRIFT_ROUNDS; r++) await round(r, true);
    const drifts = DRIFT_ROUNDS * Math.ceil(N / 5);
    await outboxes();
    // One endpoint gets 2 attempts a queue batch (fairness, docs/limits.md): a few minutes for this backlog.
    await until("the deliveries", delivered, 900_000, () => waiting);
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
    await outboxes();
    const s3 = snapshot(server.persist, dir, "s3");

    // D1 at rest: the guard rows of copied checks go 20 minutes after the copy (D135).
    const rest = join(dir, "rest.sqlite");
    vacuumCopy(s3.d1File, rest);
    mutate(rest, ["DELETE FROM checks"]);
    const sRest = measure(rest);
    // A check older than 30 days in its object: every object copy with its posture JSON dropped.
    const slim = sumTables(
      s2.domainFiles.map((f, i) => {
        const copy = join(dir, `slim-${i}.sqlite`);
        vacuumCopy(f, copy);
        // (A file without the table is the namespace's own metadata, not an object.)
        if (measure(copy).tables.checks) mutate(copy, ["UPDATE checks SET posture = NULL"]);
        return measure(copy);
      }),
    );

    const t = (tables, name) => tables[name] ?? EMPTY;
    const per = (tables, name) => (t(tables, name).rows > 0 ? t(tables, name).used / t(tables, name).rows : 0);
    const checksAt = (snap) => t(snap.domain, "checks").rows;
    const checksV = checksAt(sV);
    const checks1 = checksAt(s1);
    const checks2 = checksAt(s2);
    out.check = { withPosture: per(s2.domain, "checks"), withoutPosture: per(slim, "checks"), guard: per(s2.d1.tables, "checks") };
    out.guardRows = t(s2.d1.tables, "checks").rows;
    out.outboxAtRest = { events: t(s3.d1.tables, "events").rows, diffs: t(s3.d1.tables, "diffs").rows };
    // Rows a quiet check adds (the quiet rounds; the verification round also wrote domain events), and
    // what one DNS change adds beyond that (the drift rounds), with the bytes of one row.
    const rowsOf = (snap, where, name) => t(snap[where], name).rows;
    const rate = (where, name) => {
      const quiet = (rowsOf(s1, where, name) - rowsOf(sV, where, name)) / (checks1 - checksV);
      const change = (rowsOf(s2, where, name) - rowsOf(s1, where, name) - quiet * (checks2 - checks1)) / drifts;
      return { quiet, change, bytes: per(s2[where], name) || per(s3[where], name) };
    };
    out.rates = {
      events: rate("team", "events"),
      deliveries: rate("team", "deliveries"),
      diffs: rate("domain", "diffs"),
      alerts: (() => {
        const a = (name) => t(name.d1.tables, "alerts").rows;
        return { quiet: 0, change: (a(s2) - a(s1)) / drifts, bytes: per(s2.d1.tables, "alerts") };
      })(),
    };
    const fixedUsed = (tables) =>
      Object.entries(tables)
        .filter(([name]) => !GROWING.has(name))
        .reduce((sum, [, v]) => sum + v.used, 0);
    out.domainFixed = (fixedUsed(sRest.tables) - fixedUsed(s0.d1.tables)) / domains.length;
    out.keyBytes = per(sRest.tables, "dkim_keys");
    out.fixedTables = Object.fromEntries(
      Object.entries(sRest.tables)
        .filter(([name, v]) => !GROWING.has(name) && v.used - t(s0.d1.tables, name).used > 0)
        .map(([name, v]) => [name, Math.round((v.used - t(s0.d1.tables, name).used) / domains.length)]),
    );
    const summaryUsed = (tables) => t(tables, "dmarc_daily").used + t(tables, "dmarc_reporter_days").used;
    out.summaryDay = { bytes: (summaryUsed(s3.d1.tables) - summaryUsed(s2.d1.tables)) / (N * REPORT_DAYS), reporters: REPORTERS_PER_DAY };
    const objectReports = (tables) => ["reports", "rows"].reduce((sum, name) => sum + t(tables, name).used, 0);
    out.objectReportDay = { bytes: (objectReports(s3.domain) - objectReports(s2.domain)) / (N * REPORT_DAYS), rows: REPORTERS_PER_DAY * ROWS_PER_SMALL_REPORT };
    out.totals = { d1: { s0: s0.d1.total, s2: s2.d1.total, s3: s3.d1.total, rest: sRest.total }, checks: checks2, drifts };
    out.hooks = hook.hits();

    // 4. The large sender's object.
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
  const file = largestObjectFile(server.persist, "DomainStore");
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
  const r = m.rates;
  console.log(`\nMeasured (VACUUMed local files, ${m.n} domains, ${m.totals.checks} checks, ${m.totals.drifts} DNS changes; used bytes, indexes included):`);
  console.log(
    `- D1, a domain's fixed part (every table but checks, diffs, alerts, events and DMARC summaries): ${int(m.domainFixed)} B ${JSON.stringify(m.fixedTables)}`,
  );
  console.log(`- D1, a DKIM key (its record included): ${int(m.keyBytes)} B`);
  console.log(`- D1, a copied check's guard row (kept ${GUARD_MINUTES} minutes): ${int(m.check.guard)} B (${m.guardRows} rows when measured)`);
  console.log(`- D1 outboxes once settled: ${m.outboxAtRest.events} events, ${m.outboxAtRest.diffs} diffs`);
  console.log(`- D1, an alert: ${int(r.alerts.bytes)} B; ${r.alerts.change.toFixed(2)} per DNS change`);
  console.log(`- D1, DMARC summaries per domain and day (${m.summaryDay.reporters} reporters): ${int(m.summaryDay.bytes)} B`);
  console.log(`- domain object, a check with its posture JSON: ${int(m.check.withPosture)} B; without it: ${int(m.check.withoutPosture)} B`);
  console.log(`- domain object, a diff: ${int(r.diffs.bytes)} B; ${r.diffs.change.toFixed(2)} per DNS change`);
  console.log(`- domain object, a day of reports (${m.objectReportDay.rows} rows): ${int(m.objectReportDay.bytes)} B`);
  for (const name of ["events", "deliveries"]) {
    console.log(
      `- team object, ${name}: ${int(r[name].bytes)} B a row; ${r[name].quiet.toFixed(2)} per quiet check, ${r[name].change.toFixed(2)} more per DNS change`,
    );
  }
  console.log(`- D1 file: ${kb(m.totals.d1.s0)} with one team, ${kb(m.totals.d1.s3)} after checks and reports, ${kb(m.totals.d1.rest)} at rest`);

  console.log(
    `\nD1 per domain, as the plans keep it (summaries ${SUMMARY_DAYS} days, alerts of ${RESOLVED_ALERT_DAYS} days at ${CHANGES_PER_MONTH} DNS changes a month, retired DKIM keys ${HISTORY_DAYS} days at ${ROTATIONS_PER_YEAR} rotations a year, a guard row for ${GUARD_MINUTES} minutes after each check):`,
  );
  console.log("\n| plan | fixed | retired DKIM keys | guard row (share of time) | alerts | DMARC summaries | bytes per domain | domains per 10 GB D1 |");
  console.log("|---|---|---|---|---|---|---|---|");
  const rows = [];
  for (const p of PLANS) {
    const share = Math.min(1, GUARD_MINUTES / 60 / p.interval);
    const guard = share * m.check.guard;
    const alerts = ((CHANGES_PER_MONTH * RESOLVED_ALERT_DAYS) / 30) * r.alerts.change * r.alerts.bytes;
    const summaries = SUMMARY_DAYS * m.summaryDay.bytes;
    const keys = ((ROTATIONS_PER_YEAR * HISTORY_DAYS) / 365) * m.keyBytes;
    const total = m.domainFixed + keys + guard + alerts + summaries;
    rows.push({ ...p, d1: total });
    console.log(
      `| ${p.plan} | ${int(m.domainFixed)} | ${int(keys)} | ${int(guard)} (${(share * 100).toFixed(1)}%) | ${int(alerts)} | ${int(summaries)} | ${int(total)} | ${int(GB10 / total)} |`,
    );
  }
  const worst = Math.max(...rows.map((x) => x.d1));
  console.log(
    `\nOne million domains in one 10 GB D1 leave ${int(GB10 / 1e6)} B each; the largest per-domain figure above is ${int(worst)} B: ${int(GB10 / worst)} domains.`,
  );

  console.log(
    `\nA domain's object (checks ${HISTORY_DAYS} days with posture JSON ${POSTURE_DAYS} days, diffs, DMARC reports of a small domain for the plan's retention):`,
  );
  console.log("\n| plan | checks kept (with posture) | check history | diffs | small domain's reports | object |");
  console.log("|---|---|---|---|---|---|");
  for (const row of rows) {
    const perDay = 24 / row.interval;
    const kept = perDay * HISTORY_DAYS;
    const full = perDay * POSTURE_DAYS + 1;
    const checks = full * m.check.withPosture + (kept - full) * m.check.withoutPosture;
    const diffs = ((CHANGES_PER_MONTH * HISTORY_DAYS) / 30) * r.diffs.change * r.diffs.bytes;
    const reports = row.retention * m.objectReportDay.bytes;
    row.object = checks + diffs + reports;
    console.log(`| ${row.plan} | ${int(kept)} (${int(full)}) | ${mbs(checks)} | ${kb(diffs)} | ${mbs(reports)} | ${mbs(row.object)} |`);
  }

  console.log(`\nA team's object at its plan's domain cap (${LOG_DAYS} days of events and deliveries, every endpoint taking every event):`);
  console.log("\n| plan | domains | events a day | one endpoint | every endpoint (count) | share of a 10 GB object |");
  console.log("|---|---|---|---|---|---|");
  for (const row of rows) {
    const checksPerDay = (24 / row.interval) * row.domains;
    const changesPerDay = (CHANGES_PER_MONTH * row.domains) / 30;
    const events = checksPerDay * r.events.quiet + changesPerDay * r.events.change;
    const deliveries = checksPerDay * r.deliveries.quiet + changesPerDay * r.deliveries.change; // one endpoint
    const one = LOG_DAYS * (events * r.events.bytes + deliveries * r.deliveries.bytes);
    const all = LOG_DAYS * (events * r.events.bytes + row.endpoints * deliveries * r.deliveries.bytes);
    console.log(`| ${row.plan} | ${int(row.domains)} | ${int(events)} | ${mbs(one)} | ${mbs(all)} (${row.endpoints}) | ${((all / GB10) * 100).toFixed(1)}% |`);
  }

  if (m.large) {
    const rr = m.large.raw.tables;
    const a = m.large.after.tables;
    const rawRow = rr.rows.used / rr.rows.rows;
    const rolledPerDay = a.rows.rows / m.large.days;
    const rolledRow = a.rows.used / Math.max(1, a.rows.rows);
    const report = rr.reports.used / rr.reports.rows;
    const reportsPerDay = LARGE_ROWS_PER_DAY / 500;
    const year = 30 * LARGE_ROWS_PER_DAY * rawRow + 335 * rolledPerDay * rolledRow + 365 * reportsPerDay * report;
    console.log(
      `\nLarge sender object: ${int(rr.rows.rows)} rows over ${m.large.days} days = ${int(rawRow)} B per row (indexes included), ${int(report)} B per report; the 30-day rollup leaves ${int(rolledPerDay)} rows a day (${(LARGE_ROWS_PER_DAY / rolledPerDay).toFixed(1)}x fewer) at ${int(rolledRow)} B.`,
    );
    console.log(
      `A year at ${int(LARGE_ROWS_PER_DAY)} rows a day: 30 days raw ${mbs(30 * LARGE_ROWS_PER_DAY * rawRow)} + 335 days rolled up ${mbs(335 * rolledPerDay * rolledRow)} + ${int(365 * reportsPerDay)} reports ${mbs(365 * reportsPerDay * report)} = ${mbs(year)} (an object holds 10 GB: ${(GB10 / year).toFixed(0)}x that); without the rollup ${mbs(365 * LARGE_ROWS_PER_DAY * rawRow)}.`,
    );
  }
  return rows;
}

export default async function run() {
  const m = await side(8998);
  model(m);
}
