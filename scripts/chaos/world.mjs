// The world the chaos suite runs in: a local DoH server (with fault injection), a recording webhook
// receiver, and an isolated `wrangler dev` (bench/lib/dev-server.mjs) wired to both. Loopback only.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { startDevServer } from "../../bench/lib/dev-server.mjs";
import { startDohServer } from "../../bench/lib/doh-server.mjs";
import { call, waitFor } from "./lib.mjs";

/** The records every monitored chaos domain publishes; `label` keeps each domain's names apart. */
export function domainZone(name, ip) {
  return {
    [name]: { MX: [{ preference: 10, exchange: `mx.${name}` }], TXT: [`v=spf1 ip4:${ip} -all`] },
    [`mx.${name}`]: { A: [ip] },
    [`_dmarc.${name}`]: { TXT: [`v=DMARC1; p=reject; rua=mailto:d@${name}`] },
    [`_smtp._tls.${name}`]: { TXT: [`v=TLSRPTv1; rua=mailto:tls@${name}`] },
    [`default._bimi.${name}`]: { TXT: ["v=BIMI1; l=; a="] },
    [`selector1._domainkey.${name}`]: { TXT: ["v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="] },
  };
}

/**
 * A receiver that records every request (path, webhook-id, x-service-delivery) and answers by path:
 * /ok 200, /slow 200 after 11 s, /reset drops the connection, /redirect 302, /big 200 with 1 MB,
 * /429 429 Retry-After 120, /429-huge 429 Retry-After 9999999, /410 410, /500 500.
 */
export async function startReceiver() {
  const requests = [];
  const sockets = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (d) => chunks.push(d));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      const body = Buffer.concat(chunks).toString("utf8");
      let parsed = null;
      try {
        parsed = JSON.parse(body);
      } catch {}
      requests.push({ path, at: Date.now(), id: req.headers["webhook-id"], delivery: req.headers["x-service-delivery"], type: parsed?.type, body: parsed });
      const mode = path.split("/")[1] ?? "";
      if (mode === "reset") return req.socket.destroy();
      if (mode === "slow") return void setTimeout(() => !res.destroyed && res.writeHead(200).end("late"), 11_000);
      if (mode === "redirect") return void res.writeHead(302, { location: `/followed${path}` }).end();
      if (mode === "big") return void res.writeHead(200, { "content-type": "text/plain" }).end("é".repeat(512 * 1024)); // 1 MB, 2-byte characters
      if (mode === "429") return void res.writeHead(429, { "retry-after": "120" }).end("slow down");
      if (mode === "429-huge") return void res.writeHead(429, { "retry-after": "9999999" }).end("much later");
      if (mode === "410") return void res.writeHead(410).end("gone");
      if (mode === "500") return void res.writeHead(500).end("broken");
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    requests,
    stop: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(r);
      }),
  };
}

export async function startWorld({ port = 8890 } = {}) {
  const doh = await startDohServer({ zone: {}, delayMs: 0 });
  const ingestSecret = randomBytes(24).toString("hex");
  const receiver = await startReceiver();
  const dev = await startDevServer({
    port,
    vars: {
      DOH_RESOLVERS: doh.url,
      DMARC_INGEST_SECRET: ingestSecret,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      REPORT_DOMAIN: "reports.chaos.test",
      // Configured as a deployment that mails people must be: links come only from SITE_URL (D148); mail is
      // kept in the local outbox, so an email channel's confirmation is sent, not refused with a 503.
      SITE_URL: `http://127.0.0.1:${port}`,
      DEV_OUTBOX: "true",
      // Faults are injected per question and must reach the check that asks; a shared DNS answer
      // cache would serve the healthy answer kept by the round before (docs/decisions.md D197).
      DNS_SHARED_CACHE: "false",
    },
  });
  const base = dev.url;
  let teams = 0;
  const world = {
    doh,
    receiver,
    dev,
    base,
    admin: dev.adminToken,
    ingestSecret,
    /** A new team with its full and read-only tokens. */
    async team(plan = "enterprise") {
      const res = await call(base, "POST", "/admin/teams", {
        token: dev.adminToken,
        body: { name: `chaos-${++teams}`, plan, owner_email: `owner${teams}@chaos.test` },
      });
      if (res.status !== 201) throw new Error(`team: ${res.status} ${res.text}`);
      const t = res.json.data;
      return { id: t.team.id, full: t.tokens.full.token, ro: t.tokens.read_only.token, raw: t };
    },
    api: (token, method, path, opts = {}) => call(base, method, `/api/v1${path}`, { token, ...opts }),
    /** Adds a domain, publishes its zone and ownership record, verifies it and waits for its first check. */
    async monitoredDomain(team, name, ip) {
      for (const [n, r] of Object.entries(domainZone(name, ip))) doh.set(n, r);
      const created = await world.api(team.full, "POST", "/domains", { body: { name } });
      if (created.status !== 201) throw new Error(`domain ${name}: ${created.status} ${created.text}`);
      const d = created.json.data;
      doh.set(d.verification.host, { TXT: [d.verification.value] });
      const v = await world.api(team.full, "POST", `/domains/${d.id}/verify`);
      if (v.json?.data?.verified !== true) throw new Error(`verify ${name}: ${v.status} ${v.text}`);
      return d;
    },
    /** Waits until every listed domain has `count` completed-or-failed checks; returns their check lists. */
    async checksOf(team, domainId) {
      const r = await world.api(team.full, "GET", `/domains/${domainId}/checks?per_page=200`);
      return r.json?.data ?? [];
    },
    async waitChecks(team, domainId, count, timeoutMs = 60_000) {
      const ok = await waitFor(async () => (await world.checksOf(team, domainId)).length >= count, { timeoutMs, everyMs: 300 });
      return ok ? world.checksOf(team, domainId) : null;
    },
    /** The record of one check once it has run (the id a POST /check answered), or null after `timeoutMs`. */
    async waitCheck(team, domainId, checkId, timeoutMs = 180_000) {
      let found = null;
      const seen = async () => {
        found = (await world.checksOf(team, domainId)).find((c) => c.id === checkId) ?? null;
        return found !== null;
      };
      await waitFor(seen, { timeoutMs, everyMs: 300 });
      return found;
    },
    async stop() {
      await dev.stop();
      await doh.stop();
      await receiver.stop();
    },
  };
  return world;
}
