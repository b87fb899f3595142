// Issue 30 section 4: 1,000 alerts opened in one minute across 100 domains reach the notification channels as
// grouped messages within each channel's rate limits. `npm run bench -- notify`.
//
// A local Node receiver on 127.0.0.1 stands in for Slack (/slack), Teams (/teams) and PagerDuty (/pd, through
// PAGERDUTY_EVENTS_URL). An isolated `wrangler dev` (port 8807) holds one enterprise team, 100 domains (REST) and
// three channels (REST), each with one rule: min_severity Low, cooldown 0. The alerts are opened exactly as the
// alert service writes them (src/services/alerts/raise.ts: the alerts row, then its alert.created outbox event
// with data.alert.id set by SQL from that row) into the dev server's own local D1 with `wrangler d1 execute
// --local`, in 10 waves of 100 (one alert per domain per wave) every 6 s. The events are dated 61 s back so that
// the every-minute outbox sweep takes them at once; the cron is triggered after each wave (the sweep stands in
// for publishEvents' nudge, which a write from outside the Worker cannot send). From there it is the real
// pipeline: queue -> fan-out -> routing (30 s grouping window) -> notify message -> the channel's renderer -> HTTP.
//
// Printed per channel: messages, outbound requests, alerts per message, the most requests in any 1 s and any
// 60 s window beside the channel's published limit, latency from a wave's commit to the arrival of the request
// carrying each alert, duplicates, the body limits, and the ungrouped baseline (1,000 alerts x 3 channels).
// A second run (a second team, the rules' default cooldown of 30 min) shows what the cooldown holds back
// (NOTIFY_BENCH_COOLDOWN=0 skips it). NOTIFY_BENCH_PD_LIMIT=1 adds a third: the receiver answers PagerDuty
// events beyond 120 per minute per routing key with 429, as PagerDuty does, and the retries are measured.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevServer } from "./lib/dev-server.mjs";

const PORT = 8807;
const DOMAINS = 100;
const WAVES = 10;
const WAVE_EVERY_MS = 6_000;
/** Older than the outbox sweep's grace (OUTBOX_GRACE_MS, 60 s), so the next sweep takes them. */
const EVENT_BACKDATE_MS = 61_000;
const KINDS = ["drift", "blacklist", "dmarc_failure_spike", "expiry", "dkim", "ownership", "tls_failure", "new_sender", "reports_missing"];
// Info is below the rule's minimum (Low), so it is not used: every alert must be taken.
const SEVERITIES = ["Critical", "High", "Medium", "Low"];
const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };

// Published limits the figures are compared with.
const LIMITS = {
  // "Posting messages: 1 per second. Short bursts >1 allowed." (incoming webhooks are "posting messages")
  slack: { perSecond: 1, perMinute: null, source: "https://api.slack.com/docs/rate-limits" },
  // "If more than four requests are made in a second, the client connection is throttled" (incoming webhooks)
  teams: {
    perSecond: 4,
    perMinute: null,
    source: "https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook",
  },
  // Events API v2: 120 events per minute per integration (routing) key
  pd: { perSecond: null, perMinute: 120, source: "https://developer.pagerduty.com/docs/events-api-v2-overview#rate-limits" },
};

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (xs) => pct(xs, 50);
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The most arrivals in any window of `ms` (a sliding window starting at each arrival). */
function maxInWindow(times, ms) {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < t.length; i++) {
    while (t[i] - t[j] >= ms) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/**
 * How many of these requests a receiver holding the limit strictly would refuse (429): a request is accepted
 * when fewer than `max` accepted ones fall in the `ms` before it.
 */
function refusedUnder(times, max, ms) {
  const accepted = [];
  let refused = 0;
  for (const t of [...times].sort((a, b) => a - b)) {
    const inWindow = accepted.filter((a) => t - a < ms).length;
    if (inWindow < max) accepted.push(t);
    else refused++;
  }
  return refused;
}

/** PagerDuty's Events API v2 limit per routing key, as the receiver holds it when asked to (limitPd). */
const PD_PER_MINUTE = 120;

function startReceiver() {
  const arrivals = []; // { at, path, body, status }
  const pdAccepted = new Map(); // routing key -> accepted times
  const state = { limitPd: false };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0];
      const body = Buffer.concat(chunks).toString("utf8");
      const at = Date.now();
      const arrival = { at, path, body, status: 404 };
      arrivals.push(arrival);
      const answer = (status, type, text) => {
        arrival.status = status;
        res.writeHead(status, type ? { "content-type": type } : {}).end(text);
      };
      // What each service answers: Slack 200 "ok"; a Teams Workflows trigger 202; PagerDuty 202 with status.
      if (path === "/slack") return answer(200, "text/plain", "ok");
      if (path === "/teams") return answer(202);
      if (path !== "/pd") return answer(404);
      let event = {};
      try {
        event = JSON.parse(body);
      } catch {
        /* answered all the same */
      }
      const recent = (pdAccepted.get(event.routing_key) ?? []).filter((t) => at - t < 60_000);
      if (state.limitPd && recent.length >= PD_PER_MINUTE)
        // PagerDuty's answer to too many events: 429, "retry after some time" (Events API v2 overview).
        return answer(
          429,
          "application/json",
          JSON.stringify({ status: "throttle event", message: "Requests for this service are arriving too quickly. Please retry later." }),
        );
      pdAccepted.set(event.routing_key, [...recent, at]);
      return answer(202, "application/json", JSON.stringify({ status: "success", message: "Event processed", dedup_key: event.dedup_key ?? null }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        arrivals,
        state,
        close: () =>
          new Promise((r) => {
            server.close(r);
            server.closeAllConnections();
          }),
      });
    }),
  );
}

/** Pids of this benchmark's own `wrangler dev` (its command line names port 8807) and their descendants. */
function ownDevServerPids() {
  const procs = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").join(" ");
      const ppid = Number(readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      procs.push({ pid: Number(d), ppid, cmd });
    } catch {
      /* gone */
    }
  }
  const mine = new Set(procs.filter((p) => p.cmd.includes("wrangler") && p.cmd.includes(`--port ${PORT} `)).map((p) => p.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (!mine.has(p.ppid) || mine.has(p.pid)) continue;
      mine.add(p.pid);
      grew = true;
    }
  }
  return [...mine];
}

const q = (s) => `'${String(s).replace(/'/g, "''")}'`;
const EVENT_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const eventId = () => `evt_${[...randomBytes(24)].map((b) => EVENT_ID_ALPHABET[b % EVENT_ID_ALPHABET.length]).join("")}`;

/**
 * The statements upsertAlert (src/services/alerts/raise.ts) and buildConditionalEvent write for a new alert: the
 * row, then its alert.created event only when that row was inserted now, its payload's data.alert.id set by SQL.
 */
function alertSql(teamId, domain, alert, nowMs) {
  const payload = {
    id: eventId(),
    type: "alert.created",
    api_version: "2026-10-10",
    timestamp: new Date(nowMs).toISOString(),
    data: {
      domain: { id: domain.id, name: domain.name },
      alert: { id: null, kind: alert.kind, subject: alert.subject, severity: alert.severity, title: alert.title, body: alert.body },
    },
  };
  const match = `alerts.team_id = ${teamId} AND alerts.domain_id = ${domain.id} AND alerts.kind = ${q(alert.kind)} AND alerts.subject = ${q(alert.subject)} AND alerts.resolved_at IS NULL`;
  return [
    `INSERT INTO alerts (team_id, domain_id, kind, subject, severity, title, body, occurrences, created_at, updated_at) VALUES (${teamId}, ${domain.id}, ${q(alert.kind)}, ${q(alert.subject)}, ${q(alert.severity)}, ${q(alert.title)}, ${q(alert.body)}, 1, ${nowMs}, ${nowMs}) ON CONFLICT (team_id, domain_id, kind, subject) WHERE resolved_at IS NULL DO UPDATE SET occurrences = occurrences + 1, updated_at = ${nowMs};`,
    `INSERT INTO events (id, team_id, domain_id, type, payload, created_at, fanned_out_at) SELECT ${q(payload.id)}, ${teamId}, ${domain.id}, 'alert.created', json_set(${q(JSON.stringify(payload))}, '$.data.alert.id', alerts.id), ${nowMs - EVENT_BACKDATE_MS}, NULL FROM alerts WHERE alerts.occurrences = 1 AND alerts.created_at = ${nowMs} AND ${match} LIMIT 1;`,
  ].join("\n");
}

/**
 * Runs SQL against the dev server's local D1 (its own persist folder), as `wrangler d1 execute` does. Not
 * spawnSync: the receiver lives in this process and must keep answering (and timing arrivals) meanwhile.
 * workerd holds the database's write lock while it writes (WAL: readers are never refused), and wrangler sets
 * no busy timeout, so SQLITE_BUSY is retried here; `busyRetries` counts those.
 */
const d1Stats = { busyRetries: 0 };
async function d1(persist, { file, command, json = false }) {
  const args = ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", persist];
  if (file) args.push("--file", file);
  if (command) args.push("--command", command);
  if (json) args.push("--json");
  for (let attempt = 0; ; attempt++) {
    const r = await new Promise((resolve, reject) => {
      const child = spawn("npx", args, { env: QUIET, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("error", reject);
      child.on("exit", (code) => resolve({ code, stdout, stderr }));
    });
    if (r.code === 0) return json ? JSON.parse(r.stdout) : r.stdout;
    if (!/SQLITE_BUSY/.test(r.stderr + r.stdout) || attempt >= 30) throw new Error(`wrangler d1 execute failed (${r.code}): ${r.stderr}\n${r.stdout}`);
    d1Stats.busyRetries++;
    await sleep(100);
  }
}
/** When this benchmark triggered the every-minute cron (to tell a sweep's recovery from a queue nudge). */
const cronTimes = [];
async function triggerCron(server) {
  cronTimes.push(Date.now());
  const res = await fetch(`${server.url}/__scheduled?cron=*+*+*+*+*`);
  if (!res.ok) throw new Error(`cron: ${res.status}`);
}

const d1Rows = async (persist, command) => (await d1(persist, { command, json: true }))[0]?.results ?? [];

/** A team with 100 domains and three channels whose rule takes every alert from Low up. */
async function setUp(server, receiver, label, cooldown) {
  const team = await server.createTeam("enterprise");
  const token = team.tokens.full.token;
  const api = async (path, init = {}) => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) },
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null, text };
  };
  const domains = [];
  for (let i = 0; i < DOMAINS; i += 10) {
    const made = await Promise.all(
      Array.from({ length: Math.min(10, DOMAINS - i) }, async (_, k) => {
        const name = `d${String(i + k).padStart(3, "0")}-${label}.bench.example`;
        const r = await api("/domains", { method: "POST", body: JSON.stringify({ name }) });
        if (r.status !== 201) throw new Error(`POST /domains: ${r.status} ${r.text}`);
        return { id: r.json.data.id, name, index: i + k };
      }),
    );
    domains.push(...made);
  }
  // cooldown null: the rule's default (30 minutes).
  const rule = { min_severity: "Low", ...(cooldown === null ? {} : { cooldown_minutes: cooldown }) };
  const routingKey = randomBytes(24)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .padEnd(32, "x")
    .slice(0, 32);
  const bodies = {
    slack: { kind: "slack", name: `slack-${label}`, url: `${receiver.url}/slack`, rules: [rule] },
    teams: { kind: "teams", name: `teams-${label}`, url: `${receiver.url}/teams`, rules: [rule] },
    pd: { kind: "pagerduty", name: `pd-${label}`, routing_key: routingKey, rules: [rule] },
  };
  const channels = {};
  for (const [key, body] of Object.entries(bodies)) {
    const r = await api("/notification-channels", { method: "POST", body: JSON.stringify(body) });
    if (r.status !== 201) throw new Error(`POST /notification-channels (${key}): ${r.status} ${r.text}`);
    channels[key] = r.json.data;
  }
  return { teamId: team.team.id, api, domains, channels, routingKey, cooldownShown: channels.slack.rules[0]?.cooldown_minutes };
}

/** 10 waves of 100 alerts (one per domain each), every 6 s; returns each alert's title -> commit time. */
async function openAlerts(server, setup, label) {
  const dir = mkdtempSync(join(tmpdir(), "notify-bench-"));
  const opened = new Map(); // title -> { committedAt, wave }
  const waves = [];
  const start = Date.now();
  try {
    for (let w = 0; w < WAVES; w++) {
      const due = start + w * WAVE_EVERY_MS;
      if (Date.now() < due) await sleep(due - Date.now());
      const nowMs = Date.now();
      const statements = [];
      const titles = [];
      for (const domain of setup.domains) {
        const kind = KINDS[(w + domain.index) % KINDS.length];
        const title = `Bench ${label} w${w} d${String(domain.index).padStart(3, "0")} ${kind}`;
        titles.push(title);
        const alert = {
          kind,
          subject: `bench:${label}:w${w}`,
          severity: SEVERITIES[(w + domain.index) % SEVERITIES.length],
          title,
          body: `Opened by the notification benchmark (wave ${w} of ${WAVES}).`,
        };
        statements.push(alertSql(setup.teamId, domain, alert, nowMs));
      }
      const file = join(dir, `wave-${w}.sql`);
      writeFileSync(file, statements.join("\n"));
      await d1(server.persist, { file });
      const committedAt = Date.now();
      for (const t of titles) opened.set(t, { committedAt, wave: w });
      // The every-minute cron: its outbox sweep enqueues the fan-out of these events.
      await triggerCron(server);
      waves.push({ startedAt: nowMs, committedAt, writeMs: committedAt - nowMs });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { opened, waves, start };
}

async function allMessages(api, channelId) {
  const out = [];
  let before;
  for (;;) {
    const r = await api(`/notification-channels/${channelId}/messages?limit=100${before ? `&before=${before}` : ""}`);
    if (r.status !== 200) throw new Error(`messages: ${r.status} ${r.text}`);
    out.push(...r.json.data);
    before = r.json.meta.next_before;
    if (!before) return out;
  }
}

/**
 * Waits until no message of the three channels is collecting or pending and the opened count stopped moving
 * (with cooldown 0 every channel reaches 1,000). The every-minute cron keeps running meanwhile, as deployed.
 */
async function settle(server, setup, expected, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let lastCron = Date.now();
  let lastTotal = -1;
  let stableSince = Date.now();
  for (;;) {
    const lists = await Promise.all(Object.values(setup.channels).map((c) => allMessages(setup.api, c.id)));
    const busy = lists.flat().some((m) => m.status === "collecting" || m.status === "pending");
    const opened = lists.map((l) => l.filter((m) => m.status === "delivered").reduce((s, m) => s + m.alerts_opened, 0));
    const total = opened.reduce((a, b) => a + b, 0);
    if (total !== lastTotal) {
      lastTotal = total;
      stableSince = Date.now();
    }
    if (!busy && (expected === null ? Date.now() - stableSince > 10_000 : opened.every((n) => n >= expected))) return { timedOut: false };
    if (Date.now() > deadline) return { timedOut: true, opened, busy };
    if (Date.now() - lastCron > 60_000) {
      lastCron = Date.now();
      await triggerCron(server);
    }
    await sleep(1_000);
  }
}

const TITLE_RE = /Bench [a-z0-9]+ w\d+ d\d{3} [a-z_]+/g;

function checkSlack(body) {
  const problems = [];
  if (!Array.isArray(body.blocks) || body.blocks.length > 50) problems.push(`blocks ${body.blocks?.length}`);
  for (const b of body.blocks ?? []) {
    if (b.type === "section" && b.text.text.length > 3000) problems.push(`section text ${b.text.text.length}`);
    if (b.type === "header" && b.text.text.length > 150) problems.push(`header ${b.text.text.length}`);
    if (b.type === "context" && b.elements.length > 10) problems.push(`context elements ${b.elements.length}`);
  }
  if (typeof body.text !== "string" || body.text.length > 4000) problems.push("text");
  return problems;
}
function checkPd(body, raw) {
  const problems = [];
  if (typeof body.dedup_key !== "string" || body.dedup_key.length === 0 || body.dedup_key.length > 255) problems.push("dedup_key");
  if (body.event_action === "trigger" && (typeof body.payload?.summary !== "string" || body.payload.summary.length > 1024)) problems.push("summary");
  if (Buffer.byteLength(raw) > 512 * 1024) problems.push("size");
  return problems;
}
function checkTeams(raw) {
  return Buffer.byteLength(raw) > 28 * 1024 ? [`body ${Buffer.byteLength(raw)} bytes`] : [];
}

/** Per channel: what the API logged and what the receiver saw. */
async function report(setup, run, arrivals, routingKey) {
  const out = {};
  const lines = [];
  for (const [key, channel] of Object.entries(setup.channels)) {
    const messages = (await allMessages(setup.api, channel.id)).filter((m) => m.kind === "alerts");
    const details = [];
    for (const m of messages) details.push((await setup.api(`/notification-channels/${channel.id}/messages/${m.id}`)).json.data);
    const messageOfTitle = new Map();
    for (const d of details) for (const a of d.alerts) messageOfTitle.set(a.alert.title, d.id);
    const mine = arrivals.filter((a) => a.path === `/${key}` && (key !== "pd" || a.body.includes(routingKey)));
    const arrivalsOfMessage = new Map(); // message id -> [at]
    const arrivedAt = new Map(); // title -> first arrival carrying it
    const seenPd = new Map(); // accepted event (action, dedup_key, alerts) -> times accepted
    const problems = [];
    let foreign = 0;
    for (const a of mine) {
      const body = JSON.parse(a.body);
      if (key === "slack") problems.push(...checkSlack(body));
      if (key === "pd") problems.push(...checkPd(body, a.body));
      if (key === "teams") problems.push(...checkTeams(a.body));
      const titles = [...new Set(a.body.match(TITLE_RE) ?? [])];
      if (titles.length === 0) foreign++;
      if (key === "pd" && a.status === 202) {
        // Each accepted PagerDuty event lists its alerts (custom_details.alerts, at most 50 per incident: all of
        // them here). The same event accepted twice (a retry re-sends the whole message) counts as a duplicate;
        // PagerDuty folds it into the same incident by its dedup_key.
        const sig = `${body.event_action} ${body.dedup_key} ${titles.sort().join(",")}`;
        seenPd.set(sig, (seenPd.get(sig) ?? 0) + 1);
        for (const t of titles) if (!arrivedAt.has(t)) arrivedAt.set(t, a.at);
        // A burst over more than 10 domains is one incident (D181) listing its first 50 alerts and a count of
        // the rest: the whole message arrived with it.
        const mid = titles.map((t) => messageOfTitle.get(t)).find((x) => x !== undefined);
        if (mid !== undefined && !arrivalsOfMessage.has(mid)) arrivalsOfMessage.set(mid, [a.at]);
      } else if (key !== "pd") {
        // A chat message lists its first 20 (Slack) or 25 (Teams) alerts; any one names the message it is.
        const mid = titles.map((t) => messageOfTitle.get(t)).find((x) => x !== undefined);
        if (mid === undefined) continue;
        arrivalsOfMessage.set(mid, [...(arrivalsOfMessage.get(mid) ?? []), a.at]);
      }
    }
    for (const d of details) {
      const at = arrivalsOfMessage.get(d.id)?.[0];
      if (at !== undefined) for (const x of d.alerts) if (!arrivedAt.has(x.alert.title)) arrivedAt.set(x.alert.title, at);
    }
    const latencies = [];
    let unmatched = 0;
    for (const [title, o] of run.opened) {
      const at = arrivedAt.get(title);
      if (at === undefined) unmatched++;
      else latencies.push(at - o.committedAt);
    }
    const duplicates =
      key === "pd" ? [...seenPd.values()].reduce((s, n) => s + n - 1, 0) : [...arrivalsOfMessage.values()].reduce((s, l) => s + l.length - 1, 0);
    const delivered = messages.filter((m) => m.status === "delivered");
    // From the message's start (its first alert routed) to its delivery: the 30 s window plus the send.
    const startToSent = delivered.map((m) => Date.parse(m.delivered_at) - Date.parse(m.created_at));
    const perMessage = delivered.map((m) => m.alerts_opened);
    const times = mine.map((a) => a.at);
    const limit = LIMITS[key];
    const r = {
      messages: delivered.length,
      otherStatuses: messages.filter((m) => m.status !== "delivered").map((m) => `${m.id}:${m.status}`),
      requests: mine.length,
      throttled: mine.filter((a) => a.status === 429).length,
      requestsLogged: delivered.reduce((s, m) => s + m.requests, 0),
      alertsOpened: perMessage.reduce((a, b) => a + b, 0),
      perMessage: { min: Math.min(...perMessage), median: median(perMessage), max: Math.max(...perMessage) },
      max1s: maxInWindow(times, 1_000),
      max60s: maxInWindow(times, 60_000),
      refused: (limit.perSecond ? refusedUnder(times, limit.perSecond, 1_000) : 0) + (limit.perMinute ? refusedUnder(times, limit.perMinute, 60_000) : 0),
      startToSent,
      attempts: delivered.map((m) => m.attempts),
      firstToLast: times.length > 0 ? Math.max(...times) - Math.min(...times) : 0,
      latency: { p50: pct(latencies, 50), p99: pct(latencies, 99), max: Math.max(...latencies) },
      delivered: latencies.length,
      unmatched,
      duplicates,
      foreign,
      problems: [...new Set(problems)],
      limit,
    };
    out[key] = r;
    const limitText = [limit.perSecond && `${limit.perSecond}/s`, limit.perMinute && `${limit.perMinute}/min`].filter(Boolean).join(", ");
    lines.push(
      `${key.padEnd(5)} messages ${r.messages}${r.otherStatuses.length ? ` (+${r.otherStatuses.join(" ")})` : ""}; requests ${r.requests} at the receiver${r.throttled ? ` (${r.throttled} answered 429)` : ""} (${r.requestsLogged} logged by the service); alerts ${r.alertsOpened} (per message min ${r.perMessage.min} / median ${r.perMessage.median} / max ${r.perMessage.max})`,
      `      most requests in any 1 s: ${r.max1s}, in any 60 s: ${r.max60s} (published limit ${limitText}: ${limit.source}; held strictly it would refuse ${r.refused}); first to last request ${sec(r.firstToLast)}`,
      `      message start -> delivered: ${r.startToSent.map(sec).join(", ")} (attempts ${r.attempts.join(", ")}); alert -> arrival: p50 ${sec(r.latency.p50)}  p99 ${sec(r.latency.p99)}  max ${sec(r.latency.max)} (n=${r.delivered}, not seen ${r.unmatched}); duplicates ${r.duplicates}; requests with no bench alert ${r.foreign}; body limit problems: ${r.problems.length === 0 ? "none" : r.problems.join(", ")}`,
    );
  }
  return { out, lines };
}

/** A message sent well after its window closed: when it started, was due and went, beside the crons. */
async function explainLate(server, setup, run, out) {
  if (!Object.values(out).some((r) => r.startToSent.some((ms) => ms > 40_000))) return;
  const rows = await d1Rows(
    server.persist,
    `SELECT id, channel_id, status, attempts, created_at, send_after, delivered_at, lease_until, updated_at FROM notification_messages WHERE team_id = ${setup.teamId} ORDER BY id`,
  );
  const rel = (t) => (t === null ? "-" : `${((t - run.start) / 1000).toFixed(1)}`);
  console.log(
    `  late message(s); times in s after the first wave. crons: ${cronTimes
      .filter((t) => t >= run.start)
      .map(rel)
      .join(", ")}`,
  );
  for (const r of rows)
    console.log(
      `  message ${r.id} (channel ${r.channel_id}) ${r.status} attempts ${r.attempts}: started ${rel(r.created_at)}, due ${rel(r.send_after)}, delivered ${rel(r.delivered_at)}, lease until ${rel(r.lease_until)}`,
    );
}

async function burst(server, receiver, label, cooldown) {
  const setup = await setUp(server, receiver, label, cooldown);
  const before = receiver.arrivals.length;
  const logFrom = server.log().length;
  const run = await openAlerts(server, setup, label);
  const last = run.waves.at(-1);
  console.log(
    `[${label}] cooldown ${setup.cooldownShown} min: ${run.opened.size} alerts opened in ${WAVES} waves over ${sec(last.committedAt - run.waves[0].startedAt)} (write of 100 by wrangler d1 execute: median ${sec(median(run.waves.map((w) => w.writeMs)))}, max ${sec(Math.max(...run.waves.map((w) => w.writeMs)))}; SQLITE_BUSY retries so far ${d1Stats.busyRetries})`,
  );
  const settled = await settle(server, setup, cooldown === 0 ? run.opened.size : null, 240_000);
  if (settled.timedOut) console.log(`[${label}] NOT SETTLED after 240 s: opened per channel ${settled.opened} busy ${settled.busy}`);
  const arrivals = receiver.arrivals.slice(before);
  const log = server.log().slice(logFrom);
  const busy = (log.match(/SQLITE_BUSY|database is locked/gi) ?? []).length;
  const errors = log.split("\n").filter((l) => /"level":"(error|warn)"|✘|Uncaught|Error:/.test(l));
  console.log(
    `[${label}] dev server log during the run: ${busy} "database is locked"; ${errors.length} error/warn lines${errors.length ? `, first: ${errors[0].slice(0, 300)}` : ""}`,
  );
  const { out, lines } = await report(setup, run, arrivals, setup.routingKey);
  for (const l of lines) console.log(`[${label}] ${l}`);
  await explainLate(server, setup, run, out);
  const total = Object.values(out).reduce((s, r) => s + r.requests, 0);
  const baseline = run.opened.size * Object.keys(out).length;
  console.log(
    `[${label}] outbound requests ${total} vs ${baseline} ungrouped (${run.opened.size} alerts x ${Object.keys(out).length} channels): ${(baseline / total).toFixed(1)}x fewer (${((100 * total) / baseline).toFixed(1)}%)`,
  );
  if (cooldown !== 0) {
    const [row] = await d1Rows(
      server.persist,
      `SELECT SUM(suppressed) AS suppressed, SUM(1 - suppressed) AS placed FROM notification_items WHERE team_id = ${setup.teamId} AND action = 'trigger'`,
    );
    console.log(`[${label}] items held back by the cooldown: ${row?.suppressed} of ${(row?.suppressed ?? 0) + (row?.placed ?? 0)} (all channels)`);
  }
  return out;
}

export default async function run() {
  const receiver = await startReceiver();
  const server = await startDevServer({
    port: PORT,
    vars: {
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_ALLOW_INSECURE: "true",
      PAGERDUTY_EVENTS_URL: `${receiver.url}/pd`,
      SITE_URL: `http://127.0.0.1:${PORT}`,
      // Domain checks find no resolver (connection refused) instead of asking the internet.
      DOH_RESOLVERS: "http://127.0.0.1:9/dns-query",
    },
  });
  try {
    await burst(server, receiver, "c0", 0);
    if (process.env.NOTIFY_BENCH_COOLDOWN !== "0") await burst(server, receiver, "c30", null);
    if (process.env.NOTIFY_BENCH_PD_LIMIT === "1") {
      // The same burst against a PagerDuty that holds its 120 events per minute per routing key (429 beyond).
      receiver.state.limitPd = true;
      await burst(server, receiver, "pd120", 0);
    }
  } finally {
    const leftovers = process.platform === "linux" ? ownDevServerPids() : [];
    await server.stop();
    for (const pid of leftovers) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    }
    await receiver.close();
  }
}
