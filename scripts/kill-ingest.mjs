// `npm run test:kill`: a real crash in the middle of a DMARC report ingestion. wrangler dev runs on
// persisted local state; a large report is posted and the whole process group is SIGKILLed while the
// report is still being written; the server restarts on the same state. Then: nothing of the report
// counts, and a re-send is accepted at once and counted exactly once. (The sweep of leftovers is tested
// in test/routes/ingest/crash.test.ts.) docs/ingestion.md states the guarantee. Exits non-zero on any
// failed expectation.
import { spawnSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { startDevServer } from "../bench/lib/dev-server.mjs";
import { startDohServer } from "../bench/lib/doh-server.mjs";

const PORT = 8806;
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

// Every DNS answer takes 2 s (under the resolver's 2.5 s timeout): the selector the report names is looked up after its rows are written and
// before the final batch, which holds the report unpublished long enough to be killed right there.
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

  // Kill as soon as the report row exists but before it is complete (polling the local D1 file).
  let killedMidway = false;
  for (let attempt = 0; attempt < 3 && !killedMidway; attempt++) {
    void send();
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const rows = d1(s.persist, "SELECT status FROM dmarc_reports");
      if (rows.some((r) => r.status === "processing")) {
        await s.kill();
        killedMidway = true;
        break;
      }
      if (rows.some((r) => r.status === "complete")) break; // too fast this time: it finished before we looked
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!killedMidway) {
      d1(s.persist, "DELETE FROM dmarc_reports");
    }
  }
  expect(killedMidway, "wrangler dev was SIGKILLed while the report was being written");

  s = await startDevServer({ port: PORT, vars, keepState: true });
  const left = d1(s.persist, "SELECT r.status, (SELECT COALESCE(SUM(messages), 0) FROM dmarc_rows WHERE report_id = r.id) AS messages FROM dmarc_reports r");
  expect(left.length === 1 && left[0].status === "processing", "after the restart the report is unpublished", JSON.stringify(left));
  const [, view] = await fetch(`${s.url}/api/v1/domains/${added.data.id}/dmarc?days=7`, {
    headers: { authorization: `Bearer ${team.tokens.full.token}` },
  }).then(async (r) => [r.status, await r.json()]);
  expect(view?.data?.summary?.messages === 0, "nothing of the half-written report counts", JSON.stringify(view?.data?.summary));

  const again = await send();
  expect(again.status === 202, "a re-send right after the restart is accepted", `${again.status}`);
  const after = d1(
    s.persist,
    "SELECT r.status, (SELECT COALESCE(SUM(messages), 0) FROM dmarc_rows WHERE domain_id = r.domain_id) AS messages FROM dmarc_reports r",
  );
  expect(after.length === 1 && after[0].status === "complete" && after[0].messages === RECORDS, "the report is counted exactly once", JSON.stringify(after));
} catch (error) {
  failures.push(`crashed: ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  await s.stop().catch(() => undefined);
  await doh.stop();
}
console.log(`\nkill-ingest: ${passed} passed, ${failures.length} failed`);
for (const f of failures) console.log(`  - ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
