// Issue 11: the dashboard still renders in under a second locally with 500 domains, 365 days of
// DMARC data (about 20 sources a day) and 1,000 webhook deliveries. Isolated `wrangler dev` on port
// 8940 (own state); the team comes from the admin API, a person signs in through the email-link flow
// and the dev outbox (claiming that team, docs/decisions.md D32), and the rows are written directly
// into the same local D1 with one SQL file. Pages and their API peers are timed in alternating
// rounds; medians and p95 are printed, with the ratio to the peer. Measured, never asserted.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { startDevServer } from "./lib/dev-server.mjs";

const PORT = 8940;
const ROUNDS = Number(process.env.DASHBOARD_BENCH_ROUNDS ?? 20);
const DOMAINS = 500;
const DELIVERIES = 1_000;
const DAYS = 365;
const SOURCES_PER_DAY = 20;
const DAY_MS = 86_400_000;
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

/** One SQL file: the domains, a year of complete DMARC reports for the first one, events and deliveries. */
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
  // The DMARC data belongs to the first domain (id looked up by name inside the same file).
  const dom = `(SELECT id FROM domains WHERE team_id = ${teamId} AND name = 'd000.bench-dash.example')`;
  const policy = q(
    JSON.stringify({
      domain: "d000.bench-dash.example",
      adkim: "r",
      aspf: "r",
      p: "none",
      sp: "none",
      np: null,
      pct: 100,
      fo: null,
      testing: null,
      discoveryMethod: null,
    }),
  );
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const reports = [];
  const rows = [];
  for (let d = 1; d <= DAYS; d++) {
    const begin = today - d * DAY_MS;
    const day = new Date(begin).toISOString().slice(0, 10);
    let messages = 0;
    for (let s = 0; s < SOURCES_PER_DAY; s++) {
      const n = 10 + ((d * 7 + s * 13) % 90);
      messages += n;
      const fail = s % 5 === 0;
      rows.push(
        `((SELECT id FROM dmarc_reports WHERE domain_id = ${dom} AND org_name = 'google.com' AND report_id = 'bench-${d}'), ${dom}, '${day}', '198.51.${100 + (s % 5)}.${s + 1}', 'd000.bench-dash.example', 'none', ${fail ? 0 : 1}, 1, 'd000.bench-dash.example', 's1', '${fail ? "fail" : "pass"}', 'd000.bench-dash.example', 'pass', ${n})`,
      );
    }
    reports.push(
      `(${dom}, 'google.com', 'bench-${d}', 'noreply-dmarc-support@google.com', '1.0', ${begin}, ${begin + DAY_MS - 1000}, ${SOURCES_PER_DAY}, ${messages}, ${policy}, 'complete', ${begin + DAY_MS + 3_600_000})`,
    );
  }
  batch(
    "INSERT INTO dmarc_reports (domain_id, org_name, report_id, email, version, date_begin, date_end, records, messages, policy, status, created_at)",
    reports,
  );
  batch(
    "INSERT INTO dmarc_rows (report_id, domain_id, day, source_ip, header_from, disposition, dkim_aligned, spf_aligned, dkim_domain, dkim_selector, dkim_result, spf_domain, spf_result, messages)",
    rows,
  );
  // Events already fanned out (nothing for the consumers to do) and their delivered or failed deliveries.
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
    "INSERT INTO deliveries (endpoint_id, event_id, team_id, event_type, status, attempts, response_status, response_body, error, duration_ms, delivered_at, created_at, updated_at)",
    deliveries,
  );
  return out.join("\n");
}

export default async function run() {
  // DNS resolvers that refuse at once: the DMARC page then names no sender (measured without DNS).
  const server = await startDevServer({
    port: PORT,
    vars: { DEV_OUTBOX: "true", WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"), DOH_RESOLVERS: "http://127.0.0.1:9/dns-query" },
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
    const listed = await (await api("/domains?per_page=200")).json();
    const dmarcDomain = listed.data.find((d) => d.name === "d000.bench-dash.example");
    console.log(
      `seeded ${DOMAINS} domains, ${DAYS} days × ${SOURCES_PER_DAY} DMARC sources, ${DELIVERIES} deliveries in ${((performance.now() - t0) / 1000).toFixed(1)} s (API total: ${listed.meta?.total ?? listed.pagination?.total ?? "?"})`,
    );
    if (!dmarcDomain) throw new Error("the seeded DMARC domain is not listed");

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
