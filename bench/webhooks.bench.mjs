// Issue 6: webhook delivery through `wrangler dev` to a local Node receiver on 127.0.0.1.
// (1) latency of POST /webhooks/{id}/test (first attempt inside the request) until the receiver has
// it; (2) latency through the outbox and queue: POST /domains -> domain.created -> fan-out message ->
// deliver message -> receiver; (3) deliveries per second sustained for a burst of events fanned out
// to 25 endpoints. Every received request is checked with the standardwebhooks library.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { startDevServer } from "./lib/dev-server.mjs";

const PORT = 8803;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (x) => `${x.toFixed(1)} ms`;

function startReceiver() {
  const arrivals = []; // { at, path, id, body, headers }
  const waiters = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const a = { at: performance.now(), path: req.url, id: req.headers["webhook-id"], body: Buffer.concat(chunks).toString("utf8"), headers: req.headers };
      arrivals.push(a);
      res.writeHead(200).end("ok");
      for (const w of [...waiters]) {
        if (!w.test(a)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(a);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        arrivals,
        waitFor: (test, timeoutMs = 30_000) =>
          new Promise((res, rej) => {
            const hit = arrivals.find(test);
            if (hit) return res(hit);
            const w = { test, resolve: res };
            waiters.push(w);
            setTimeout(() => rej(new Error("receiver timeout")), timeoutMs).unref();
          }),
        close: () =>
          new Promise((r) => {
            server.close(r);
            server.closeAllConnections();
          }),
      });
    }),
  );
}

/** Pids of this benchmark's own `wrangler dev` (its command line names port 8803) and their
 *  descendants: `npx` does not always pass SIGTERM on, which would leave them running. */
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

export default async function run() {
  const receiver = await startReceiver();
  const server = await startDevServer({
    port: PORT,
    vars: { WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"), WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_ALLOW_INSECURE: "true" },
  });
  try {
    const team = await server.createTeam("enterprise");
    const token = team.tokens.full.token;
    const api = (path, init = {}) =>
      fetch(`${server.url}/api/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) },
      });
    const secrets = new Map();
    const hooks = [];
    for (let i = 0; i < 25; i++) {
      const res = await api("/webhooks", { method: "POST", body: JSON.stringify({ url: `${receiver.url}/hook/${i}`, events: ["*"] }) });
      if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${await res.text()}`);
      const { data } = await res.json();
      hooks.push(data);
      secrets.set(`/hook/${i}`, data.secret);
    }

    // (1) POST /test: the attempt happens inside the request.
    const testLat = [];
    const reqLat = [];
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      const res = await api(`/webhooks/${hooks[0].id}/test`, { method: "POST" });
      const { data } = await res.json();
      const t1 = performance.now();
      const got = await receiver.waitFor((a) => a.id === data.event_id);
      // The first 10 warm up.
      if (i >= 10) {
        testLat.push(got.at - t0);
        reqLat.push(t1 - t0);
      }
    }
    console.log(
      `POST /webhooks/{id}/test -> received: p50 ${ms(pct(testLat, 50))}  p99 ${ms(pct(testLat, 99))}  (whole request p50 ${ms(pct(reqLat, 50))}), n=${testLat.length}`,
    );

    // (2) Through the outbox and the queue: one domain.created event, 25 endpoints.
    const queueLat = [];
    for (let i = 0; i < 10; i++) {
      const name = `lat-${i}-${Date.now()}.example.com`;
      const t0 = performance.now();
      const res = await api("/domains", { method: "POST", body: JSON.stringify({ name }) });
      if (res.status !== 201) throw new Error(`POST /domains: ${res.status} ${await res.text()}`);
      const first = await receiver.waitFor((a) => a.path === "/hook/0" && a.body.includes(name));
      queueLat.push(first.at - t0);
    }
    console.log(
      `POST /domains -> domain.created received via queue (fan-out + deliver): p50 ${ms(pct(queueLat, 50))}  p99 ${ms(pct(queueLat, 99))}, n=${queueLat.length}`,
    );

    // Let the other 24 copies of those events arrive before measuring the burst.
    const settle = Date.now() + 60_000;
    while (receiver.arrivals.filter((a) => a.body.includes('"lat-')).length < 10 * hooks.length && Date.now() < settle)
      await new Promise((r) => setTimeout(r, 100));

    // (3) Sustained: a burst of events, each fanned out to 25 endpoints.
    const events = 80;
    const before = receiver.arrivals.length;
    const expected = events * hooks.length;
    const t0 = performance.now();
    const names = [];
    for (let i = 0; i < events; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, events - i) }, async (_, k) => {
          const name = `burst-${i + k}-${Date.now()}.example.com`;
          names.push(name);
          const res = await api("/domains", { method: "POST", body: JSON.stringify({ name }) });
          if (res.status !== 201) throw new Error(`POST /domains: ${res.status}`);
        }),
      );
    }
    const posted = performance.now();
    const deadline = Date.now() + 180_000;
    while (receiver.arrivals.length - before < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const got = receiver.arrivals.slice(before);
    const last = Math.max(...got.map((a) => a.at));
    const seconds = (last - t0) / 1000;
    console.log(
      `burst: ${events} events x ${hooks.length} endpoints = ${expected} deliveries; received ${got.length} in ${seconds.toFixed(1)} s (events posted in ${((posted - t0) / 1000).toFixed(1)} s) -> ${(got.length / seconds).toFixed(0)} deliveries/s sustained`,
    );
    const ids = new Set(got.map((a) => `${a.path} ${a.id}`));
    console.log(`duplicates (same endpoint and webhook-id twice): ${got.length - ids.size}`);

    // Every request the receiver saw verifies with the standardwebhooks library.
    let bad = 0;
    for (const a of receiver.arrivals) {
      try {
        new Webhook(secrets.get(a.path)).verify(a.body, a.headers);
      } catch {
        bad++;
      }
    }
    console.log(`signatures: ${receiver.arrivals.length - bad}/${receiver.arrivals.length} verified by standardwebhooks`);
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
