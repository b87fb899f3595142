// `npm run test:kill`: a real crash in the middle of a DMARC report ingestion. wrangler dev runs on
// persisted local state; a large report is posted and the whole process group is SIGKILLed after the
// domain's report object stored it and before the D1 batch (summary, event) ran; the server restarts on
// the same state. Then: the report is whole in the object (one transaction) and nothing is in D1, and a
// re-send is accepted at once and counted exactly once, with one event; D1 remembered the step as due
// until then (D160). docs/ingestion.md states the guarantee (docs/decisions.md D122). Exits non-zero on any failed expectation.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { createHmac, randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { startDevServer } from "../bench/lib/dev-server.mjs";
import { startDohServer } from "../bench/lib/doh-server.mjs";

const PORT = Number(process.env.KILL_PORT ?? 8806);
const SECRET = randomBytes(16).toString("hex");
const failures = [];
let passed = 0;
const expect = (ok, what, detail = "") => {
  if (ok) passed++;
  else failures.push(`${what}${detail ? `: ${detail}` : ""}`);
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${!ok && detail ? ` (${detail})` : ""}`);
};
const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };
function d1(persist, sqlText) {
  const r = spawnSync("npx", ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", persist, "--json", "--command", sqlText], {
    env: QUIET,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`d1 execute failed: ${r.stderr}`);
  return JSON.parse(r.stdout)[0]?.results ?? [];
}

/** Rows of a query over every report object's SQLite file (one domain here), read-only beside workerd. */
function objects(persist, sqlText, className = "DomainStore") {
  const dir = `${persist}/v3/do/emailauth-monitor-${className}`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sqlite"))
    .flatMap((f) => {
      const db = new DatabaseSync(`${dir}/${f}`, { readOnly: true });
      try {
        return db.prepare(sqlText).all();
      } catch {
        return []; // the object's schema is not there yet
      } finally {
        db.close();
      }
    });
}

const day = (n) => Math.floor(Date.now() / 86_400_000 - n) * 86_400;
const RECORDS = 60_000;
const xml = (domain, reportId) =>
  `<?xml version="1.0" encoding="UTF-8"?><feedback><report_metadata><org_name>google.com</org_name><email>noreply@google.com</email><report_id>${reportId}</report_id>` +
  `<date_range><begin>${day(1)}</begin><end>${day(0) - 1}</end></date_range></report_metadata><policy_published><domain>${domain}</domain><p>none</p></policy_published>` +
  Array.from(
    { length: RECORDS },
    (_, i) =>
      `<record><row><source_ip>198.${(i >> 8) & 255}.${i & 255}.7</source_ip><count>1</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><dkim><domain>${domain}</domain><selector>s2026</selector><result>pass</result></dkim><spf><domain>${domain}</domain><result>pass</result></spf></auth_results></record>`,
  ).join("") +
  "</feedback>";

// Every DNS answer takes 2 s (under the resolver's 2.5 s timeout): the selector the report names is looked up after the object
// stored the report and before the D1 batch, which holds the report unsummarised long enough to be killed right there.
const doh = await startDohServer({ zone: {}, delayMs: 2000 });
const vars = { DOH_RESOLVERS: doh.url ?? `http://127.0.0.1:${doh.port}/dns-query`, DMARC_INGEST_SECRET: SECRET, REPORT_DOMAIN: "reports.kill.test" };
let s = await startDevServer({ port: PORT, vars });
try {
  const team = await s.createTeam("enterprise");
  const api = (p, init = {}) =>
    fetch(`${s.url}/api/v1${p}`, { ...init, headers: { authorization: `Bearer ${team.tokens.full.token}`, "content-type": "application/json" } }).then(
      async (r) => [r.status, await r.json().catch(() => null)],
    );
  const [, added] = await api("/domains", { method: "POST", body: JSON.stringify({ name: "kill.example" }) });
  doh.set(added.data.verification.host, { TXT: [added.data.verification.value] });
  const [, verified] = await api(`/domains/${added.data.id}/verify`, { method: "POST" });
  expect(verified?.data?.verified === true, "the domain is verified");
  const body = gzipSync(Buffer.from(xml("kill.example", `kill-${Date.now()}`)));
  const sig = createHmac("sha256", SECRET).update(body).digest("hex");
  const send = () =>
    fetch(`${s.url}/api/webhooks/dmarc`, { method: "POST", headers: { "content-type": "application/gzip", "x-signature": `sha256=${sig}` }, body }).catch(
      (e) => e,
    );

  // Kill as soon as the object holds the report but before it is summarised (polling the object's SQLite file).
  const REPORTS = "SELECT summarised_at AS summarised, messages FROM reports";
  let killedMidway = false;
  for (let attempt = 0; attempt < 3 && !killedMidway; attempt++) {
    void send();
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const rows = objects(s.persist, REPORTS);
      if (rows.some((r) => r.summarised === null)) {
        await s.kill();
        killedMidway = true;
        break;
      }
      if (rows.some((r) => r.summarised !== null)) break; // too fast this time: it finished before we looked
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!killedMidway) break;
  }
  expect(killedMidway, "wrangler dev was SIGKILLed between the object write and the D1 batch");

  s = await startDevServer({ port: PORT, vars, keepState: true });
  const left = objects(s.persist, REPORTS);
  expect(
    left.length === 1 && left[0].summarised === null && left[0].messages === RECORDS,
    "after the restart the object holds the whole report, unsummarised",
    JSON.stringify(left),
  );
  const d1Left = d1(s.persist, "SELECT COUNT(*) AS days FROM dmarc_daily");
  expect(d1Left[0]?.days === 0, "and D1 holds no summary of it", JSON.stringify(d1Left));
  // The row written before the object write says its D1 step is due: without a re-send, the every-minute
  // report-summaries job runs it a minute later (docs/decisions.md D160).
  const dueLeft = d1(s.persist, "SELECT COUNT(*) AS n FROM report_summaries_due WHERE kind = 'dmarc'");
  expect(dueLeft[0]?.n === 1, "and D1 remembers the report's D1 step as due", JSON.stringify(dueLeft));

  const again = await send();
  expect(again.status === 202, "a re-send right after the restart is accepted", `${again.status}`);
  const after = objects(s.persist, REPORTS);
  expect(after.length === 1 && after[0].summarised !== null && after[0].messages === RECORDS, "the object counts the report once", JSON.stringify(after));
  const summary = d1(s.persist, "SELECT SUM(messages) AS messages FROM dmarc_daily");
  expect(summary[0]?.messages === RECORDS, "the D1 summary counts it once", JSON.stringify(summary));
  // An event sits in D1's outbox until the queue fans it out into the team's webhook log object (D141):
  // its ids from both, D1 first (a move in between then shows it twice, and the set counts it once).
  const reportEvents = () => {
    const query = "SELECT id FROM events WHERE type = 'dmarc.report.received'";
    const outbox = d1(s.persist, query).map((r) => r.id);
    return new Set([...outbox, ...objects(s.persist, query, "TeamWebhooks").map((r) => r.id)]);
  };
  const events = reportEvents();
  expect(events.size === 1, "one event", JSON.stringify([...events]));
  const dueAfter = d1(s.persist, "SELECT COUNT(*) AS n FROM report_summaries_due");
  expect(dueAfter[0]?.n === 0, "nothing is left due once the re-send summarised it", JSON.stringify(dueAfter));
  const swept = await fetch(`${s.url}/__scheduled?cron=${encodeURIComponent("* * * * *")}`).catch((e) => e);
  const eventsAfterSweep = reportEvents();
  expect(
    swept.status === 200 && eventsAfterSweep.size === 1,
    "the every-minute sweep adds nothing to a summarised report",
    JSON.stringify([...eventsAfterSweep]),
  );
  // wrangler dev reloads when a source file changes under it: a refused connection is tried again.
  let view = null;
  for (let attempt = 0; attempt < 5 && view === null; attempt++) {
    view = await fetch(`${s.url}/api/v1/domains/${added.data.id}/dmarc?days=7`, { headers: { authorization: `Bearer ${team.tokens.full.token}` } })
      .then((r) => r.json())
      .catch(() => new Promise((r) => setTimeout(() => r(null), 2000)));
  }
  expect(view?.data?.summary?.messages === RECORDS, "the DMARC view counts it once", JSON.stringify(view?.data?.summary));
} catch (error) {
  failures.push(`crashed: ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  await s.stop().catch(() => undefined);
  await doh.stop();
}
console.log(`\nkill-ingest: ${passed} passed, ${failures.length} failed`);
for (const f of failures) console.log(`  - ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
