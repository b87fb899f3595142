// Issue 11: the dashboard still renders in under a second locally with 500 domains, 365 days of
// DMARC data (about 20 sources a day) and 1,000 webhook deliveries. Isolated `wrangler dev` on port
// 8940 (own state); the team comes from the admin API, a person signs in through the email-link flow
// and the dev outbox (claiming that team, docs/decisions.md D32), the domains are written directly into
// the same local D1 with one SQL file, the deliveries too, as the release before the per-team webhook logs
// left them (events and legacy_deliveries), then moved into the team's log by the every-minute cron's
// mover (docs/decisions.md D145; `wrangler dev --test-scheduled`), and the DMARC reports go through ingestion. Pages and their API peers are timed in alternating
// rounds; medians and p95 are printed, with the ratio to the peer. Measured, never asserted.
import { spawnSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { startDevServer } from "./lib/dev-server.mjs";

const PORT = 8940;
const ROUNDS = Number(process.env.DASHBOARD_BENCH_ROUNDS ?? 20);
const DOMAINS = 500;
const DELIVERIES = 1_000;
const DAYS = 365;
const SOURCES_PER_DAY = 20;
const DAY_MS = 86_400_000;
const INGEST_SECRET = randomBytes(16).toString("hex");
const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const q = (s) => `'${String(s).replaceAll("'", "''")}'`;

/** A minimal cookie jar: name=value pairs from every Set-Cookie answer. */
function jar() {
  const cookies = new Map();
  return {
    take(res) {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const i = pair.indexOf("=");
        cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
      }
    },
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
    has: (name) => cookies.has(name),
  };
}

/** fetch, once more on a socket the server closed while idle (keep-alive ran out during seeding). */
async function fetchOnce(url, init) {
  try {
    return await fetch(url, init);
  } catch (e) {
    if (e?.cause?.code !== "UND_ERR_SOCKET") throw e;
    return fetch(url, init);
  }
}

const csrfOf = (html) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** Sign-in as a person would: the form, the link from the dev outbox, the confirm form. */
async function signIn(url, email) {
  const c = jar();
  const form = async (path, fields) => {
    const res = await fetch(`${url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: url, cookie: c.header(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    c.take(res);
    return res;
  };
  const get = async (path) => {
    const res = await fetch(`${url}${path}`, { redirect: "manual", headers: { cookie: c.header() } });
    c.take(res);
    return { res, html: await res.text() };
  };
  const page = await get("/sign-in");
  const sent = await form("/sign-in", { _csrf: csrfOf(page.html), email });
  if (sent.status !== 200) throw new Error(`POST /sign-in: ${sent.status} ${await sent.text()}`);
  const outbox = await get("/dev/outbox");
  const link = /class="mail-link" href="([^"]+)"/.exec(outbox.html)?.[1]?.replaceAll("&amp;", "&");
  if (!link) throw new Error("no sign-in link in the dev outbox");
  const token = new URL(link).searchParams.get("token");
  const confirm = await get(`/auth/link?token=${encodeURIComponent(token)}`);
  const done = await form("/auth/link", { _csrf: csrfOf(confirm.html), token });
  if (done.status !== 303 || !c.has("eam_session")) throw new Error(`POST /auth/link: ${done.status} ${await done.text()}`);
  return c.header();
}

/** One SQL file: the domains, events and deliveries (the DMARC reports go through ingestion: dmarcReport). */
function seedSql({ teamId, endpointId }) {
  const now = Date.now();
  const out = [];
  const batch = (head, rows, size = 200) => {
    for (let i = 0; i < rows.length; i += size) out.push(`${head} VALUES\n${rows.slice(i, i + size).join(",\n")};`);
  };
  const grades = ["A", "B", "C", "D", "F"];
  batch(
    "INSERT INTO domains (team_id, name, client, verified, verification_token, verified_at, report_token, score, grade, dmarc_policy, last_checked_at, next_check_at, created_at)",
    Array.from({ length: DOMAINS }, (_, i) => {
      const score = 40 + ((i * 37) % 60);
      return `(${teamId}, ${q(`d${String(i).padStart(3, "0")}.bench-dash.example`)}, ${q(`client-${i % 12}`)}, 1, ${q(`vt-${i}-${randomBytes(8).toString("hex")}`)}, ${now - 30 * DAY_MS}, ${q(`rt${i}${randomBytes(8).toString("hex")}`)}, ${score}, ${q(grades[i % 5])}, ${q(["none", "quarantine", "reject"][i % 3])}, ${now - 3_600_000}, ${now + 3_600_000 * 24 * 365}, ${now - (DOMAINS - i) * 60_000})`;
    }),
  );
  // Events already fanned out (nothing for the consumers to do) and their delivered or failed deliveries,
  // in the D1 tables of the release before the team logs: the mover takes them to the team's object.
  const events = [];
  const deliveries = [];
  for (let i = 0; i < DELIVERIES; i++) {
    const id = `evt_bench${String(i).padStart(6, "0")}`;
    const at = now - (DELIVERIES - i) * 60_000;
    const payload = {
      type: "check.completed",
      timestamp: new Date(at).toISOString(),
      data: { domain: { id: i, name: `d${i % DOMAINS}.bench-dash.example` }, score: 80 },
    };
    events.push(`(${q(id)}, ${teamId}, NULL, 'check.completed', ${q(JSON.stringify(payload))}, ${at}, ${at + 500})`);
    const ok = i % 10 !== 0;
    deliveries.push(
      `(${endpointId}, ${q(id)}, ${teamId}, 'check.completed', '${ok ? "delivered" : "failed"}', ${ok ? 1 : 8}, ${ok ? 200 : 500}, '${ok ? "ok" : "error"}', ${ok ? "NULL" : "'HTTP 500'"}, ${20 + (i % 50)}, ${ok ? at + 700 : "NULL"}, ${at + 600}, ${at + 700})`,
    );
  }
  batch("INSERT INTO events (id, team_id, domain_id, type, payload, created_at, fanned_out_at)", events);
  batch(
    "INSERT INTO legacy_deliveries (endpoint_id, event_id, team_id, event_type, status, attempts, response_status, response_body, error, duration_ms, delivered_at, created_at, updated_at)",
    deliveries,
  );
  return out.join("\n");
}

/** Day `d` (1 = yesterday) of the first domain's year of reports: SOURCES_PER_DAY sources, every fifth failing DKIM. */
function dmarcReport(d) {
  const begin = Math.floor(Date.now() / DAY_MS) * DAY_MS - d * DAY_MS;
  const domain = "d000.bench-dash.example";
  let records = "";
  for (let s = 0; s < SOURCES_PER_DAY; s++) {
    const n = 10 + ((d * 7 + s * 13) % 90);
    const dkim = s % 5 === 0 ? "fail" : "pass";
    records += `<record><row><source_ip>198.51.${100 + (s % 5)}.${s + 1}</source_ip><count>${n}</count><policy_evaluated><disposition>none</disposition><dkim>${dkim}</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><dkim><domain>${domain}</domain><selector>s1</selector><result>${dkim}</result></dkim><spf><domain>${domain}</domain><result>pass</result></spf></auth_results></record>`;
  }
  // Three reporters in turn: one reporter may send at most 200 reports a day (docs/limits.md).
  const org = ["google.com", "yahoo.com", "outlook.com"][d % 3];
  return `<?xml version="1.0"?><feedback><report_metadata><org_name>${org}</org_name><email>dmarc@${org}</email><report_id>bench-${d}</report_id><date_range><begin>${begin / 1000}</begin><end>${(begin + DAY_MS) / 1000 - 1}</end></date_range></report_metadata><policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published>${records}</feedback>`;
}

export default async function run() {
  // DNS resolvers that refuse at once: the DMARC page then names no sender (measured without DNS).
  const server = await startDevServer({
    port: PORT,
    vars: {
      DEV_OUTBOX: "true",
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      DOH_RESOLVERS: "http://127.0.0.1:9/dns-query",
      DMARC_INGEST_SECRET: INGEST_SECRET,
    },
  });
  const sqlFile = `/tmp/dashboard-bench-${process.pid}.sql`;
  try {
    const team = await server.createTeam("enterprise");
    const token = team.tokens.full.token;
    const cookie = await signIn(server.url, "bench@example.com");
    const api = (path, init = {}) =>
      fetchOnce(`${server.url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });
    const hook = await api("/webhooks", { method: "POST", body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["check.completed"] }) });
    const endpoint = (await hook.json()).data;
    if (!endpoint?.id) throw new Error(`webhook: ${hook.status}`);

    const t0 = performance.now();
    writeFileSync(sqlFile, seedSql({ teamId: team.team.id, endpointId: endpoint.id }));
    const seeded = spawnSync("npx", ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", server.persist, "--file", sqlFile], {
      env: QUIET,
      encoding: "utf8",
    });
    if (seeded.status !== 0) throw new Error(`seed: ${seeded.stderr}\n${seeded.stdout.slice(-2000)}`);
    // The mover runs in the every-minute cron (at most 40 batches of 500 a tick): fire it until done.
    for (let tick = 0; ; tick++) {
      const fired = await fetchOnce(`${server.url}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
      if (!fired.ok) throw new Error(`cron: ${fired.status}`);
      const progress = await (await fetchOnce(`${server.url}/admin/report-moves`, { headers: { authorization: `Bearer ${server.adminToken}` } })).json();
      if (progress.data?.webhooks_done) break;
      if (tick >= 10) throw new Error(`deliveries not moved: ${JSON.stringify(progress)}`);
    }
    const listed = await (await api("/domains?per_page=200")).json();
    const dmarcDomain = listed.data.find((d) => d.name === "d000.bench-dash.example");
    console.log(
      `seeded ${DOMAINS} domains and ${DELIVERIES} deliveries in ${((performance.now() - t0) / 1000).toFixed(1)} s (API total: ${listed.meta?.total ?? listed.pagination?.total ?? "?"})`,
    );
    if (!dmarcDomain) throw new Error("the seeded DMARC domain is not listed");
    // The year of DMARC reports goes through ingestion: report rows live in the domain's report object
    // (docs/decisions.md D120), which only the Worker writes.
    const t1 = performance.now();
    const address = (await (await api(`/domains/${dmarcDomain.id}`)).json()).data?.dmarc_report_address;
    if (!address) throw new Error("no report address for the DMARC domain");
    for (let d = 1; d <= DAYS; d++) {
      const body = JSON.stringify({ recipient: address, content_base64: Buffer.from(dmarcReport(d)).toString("base64") });
      const res = await fetchOnce(`${server.url}/api/webhooks/dmarc`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signature": `sha256=${createHmac("sha256", INGEST_SECRET).update(body).digest("hex")}` },
        body,
      });
      if (res.status !== 202) throw new Error(`DMARC report ${d}: ${res.status} ${await res.text()}`);
    }
    console.log(`ingested ${DAYS} DMARC reports × ${SOURCES_PER_DAY} sources in ${((performance.now() - t1) / 1000).toFixed(1)} s`);

    const page = (path) => () => fetchOnce(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
    const peer = (path) => () => api(path);
    const targets = [
      { name: "GET /dashboard", run: page("/dashboard"), peer: "domains" },
      { name: "GET /domains (page 1 of 500)", run: page("/domains"), peer: "domains" },
      { name: `GET /domains/{id}/dmarc?days=${DAYS}`, run: page(`/domains/${dmarcDomain.id}/dmarc?days=${DAYS}`), peer: "dmarc" },
      { name: "GET /webhooks/{id} (delivery log)", run: page(`/webhooks/${endpoint.id}`), peer: "domains" },
      { name: "peer: GET /api/v1/domains?per_page=200", run: peer("/domains?per_page=200"), key: "domains" },
      { name: `peer: GET /api/v1/domains/{id}/dmarc?days=${DAYS}`, run: peer(`/domains/${dmarcDomain.id}/dmarc?days=${DAYS}`), key: "dmarc" },
    ];

    // Warm-up, and proof that each answer is a real page with the seeded data in it.
    const expectedTotal = DAYS * SOURCES_PER_DAY; // not printed on pages; the day's message sum is checked instead
    for (const t of targets) {
      const res = await t.run();
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${t.name}: HTTP ${res.status} ${body.slice(0, 300)}`);
      t.bytes = body.length;
      t.body = body;
    }
    const dmarcApi = JSON.parse(targets[5].body).data;
    const messages = dmarcApi?.summary?.messages;
    const shown = Number(messages).toLocaleString("en-US");
    const dmarcHtml = targets[2].body;
    const onPage = dmarcHtml.includes(shown) || dmarcHtml.includes(String(messages));
    console.log(
      `DMARC API: ${dmarcApi?.summary?.reports} reports, ${messages} messages, ${dmarcApi?.sources_total} sources (seeded ${DAYS} reports, ${expectedTotal} rows); the DMARC page shows ${shown}: ${onPage ? "yes" : "NO"}`,
    );
    console.log(
      `delivery log page names a seeded event: ${targets[3].body.includes("evt_bench") || targets[3].body.includes("check.completed") ? "yes" : "NO"}; /domains page shows a seeded domain: ${targets[1].body.includes("bench-dash.example") ? "yes" : "NO"}`,
    );

    for (const t of targets) t.ms = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate the order each round so that no target always runs right after the same one.
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) {
        const s = performance.now();
        const res = await t.run();
        await res.arrayBuffer();
        t.ms.push(performance.now() - s);
        if (res.status !== 200) throw new Error(`${t.name}: HTTP ${res.status} in round ${r}`);
      }
    }

    const peers = Object.fromEntries(targets.filter((t) => t.key).map((t) => [t.key, pct(t.ms, 50)]));
    const rows = targets.map((t) => {
      const med = pct(t.ms, 50);
      const p95 = pct(t.ms, 95);
      const pm = t.peer ? peers[t.peer] : null;
      return {
        page: t.name,
        "median ms": med.toFixed(1),
        "p95 ms": p95.toFixed(1),
        "peer median": pm == null ? "-" : `${pm.toFixed(1)} (${t.peer} API)`,
        ratio: pm == null ? "-" : `${(med / pm).toFixed(2)}×`,
        "under 1 s": p95 < 1000 ? "yes" : "no",
        KB: (t.bytes / 1024).toFixed(0),
      };
    });
    console.log(
      `${ROUNDS} alternating rounds, one request at a time, session cookie for pages and the team token for the API peers ("under 1 s" reads the p95):`,
    );
    console.table(rows);
  } catch (e) {
    console.log(`--- server log ---\n${server.log().slice(-3000)}`);
    throw e;
  } finally {
    rmSync(sqlFile, { force: true });
    await server.stop();
  }
}
