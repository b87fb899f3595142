// `npm run smoke`: end to end through `wrangler dev` (local D1, Queues, Durable Objects, cron, the email
// handler and send_email) with DNS from a local DoH server and a local webhook receiver; offline.
// Every step asserts what it prints; any failed expectation makes the run exit non-zero.
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { startDevServer } from "../bench/lib/dev-server.mjs";
import { startDohServer } from "../bench/lib/doh-server.mjs";

const failures = [];
let passed = 0;
function expect(ok, what, detail = "") {
  if (ok) passed++;
  else failures.push(`${what}${detail ? `: ${detail}` : ""}`);
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${!ok && detail ? ` (${detail})` : ""}`);
}

const INGEST_SECRET = randomBytes(24).toString("hex");
const zone = {
  "e2e.example": { MX: [{ preference: 10, exchange: "mx.e2e.example" }], TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] },
  "mx.e2e.example": { A: ["192.0.2.10"] },
  "_dmarc.e2e.example": { TXT: ["v=DMARC1; p=none; rua=mailto:d@e2e.example"] },
  "google._domainkey.e2e.example": { TXT: ["v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="] },
  "flood.example": { TXT: ["v=spf1 -all"] },
  "hooks.localhost.test": { A: ["127.0.0.1"] },
};
const doh = await startDohServer({ zone, delayMs: 0 });
const dohUrl = doh.url ?? `http://127.0.0.1:${doh.port}/dns-query`;

// A webhook receiver that refuses everything (400: a final failure per delivery).
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(400).end("no"));
});
await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const s = await startDevServer({
  port: 8805,
  vars: {
    DOH_RESOLVERS: dohUrl,
    DMARC_INGEST_SECRET: INGEST_SECRET,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    REPORT_DOMAIN: "reports.e2e.test",
    NOTIFY_FROM: "alerts@e2e.test",
  },
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const day = (n) => Math.floor(Date.now() / 86_400_000 - n) * 86_400;
const reportXml = (domain, org, reportId, records) =>
  `<?xml version="1.0"?><feedback><report_metadata><org_name>${org}</org_name><email>noreply@${org}</email><report_id>${reportId}</report_id>` +
  `<date_range><begin>${day(1)}</begin><end>${day(0) - 1}</end></date_range></report_metadata><policy_published><domain>${domain}</domain><p>none</p></policy_published>` +
  records
    .map(
      ([ip, n]) =>
        `<record><row><source_ip>${ip}</source_ip><count>${n}</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><spf><domain>${domain}</domain><result>pass</result></spf></auth_results></record>`,
    )
    .join("") +
  "</feedback>";

try {
  const team = await s.createTeam("enterprise");
  const api = (p, init = {}, token = team.tokens.full.token) =>
    fetch(`${s.url}/api/v1${p}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) } }).then(
      async (r) => [r.status, await r.json().catch(() => null)],
    );

  // ---- Domains: add, verify before and after the TXT record, the queued first check.
  const [st, created] = await api("/domains", { method: "POST", body: JSON.stringify({ name: "E2E.example." }) });
  expect(st === 201 && created?.data?.name === "e2e.example", "add a domain (name normalized)", `${st}`);
  const id = created.data.id;
  const [, before] = await api(`/domains/${id}/verify`, { method: "POST" });
  expect(before?.data?.verified === false, "verify fails before the TXT record exists");
  doh.set(created.data.verification.host, { TXT: [created.data.verification.value] });
  const [, after] = await api(`/domains/${id}/verify`, { method: "POST" });
  expect(after?.data?.verified === true, "verify passes once the TXT record is published");
  let checked = null;
  for (let i = 0; i < 30 && !checked; i++) {
    await sleep(1000);
    const [, d] = await api(`/domains/${id}`);
    if (d?.data?.last_checked_at) checked = d.data;
  }
  expect(checked !== null && typeof checked.score === "number", "the queued first check runs through the real queue", JSON.stringify(checked?.score));
  const [, dkim] = await api(`/domains/${id}/dkim`);
  expect(dkim?.data?.summary?.active >= 1, "the DKIM selector is discovered");

  // ---- A DMARC report by email, through wrangler dev's local email handler and the exported handler.
  const address = created.data.dmarc_report_address;
  const gz = gzipSync(Buffer.from(reportXml("e2e.example", "google.com", `mail-${Date.now()}`, [["192.0.2.10", 7]])));
  const mime = [
    "From: noreply-dmarc-support@google.com",
    `To: ${address}`,
    `Message-ID: <${randomBytes(8).toString("hex")}@google.com>`,
    "Subject: Report domain: e2e.example",
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b1"',
    "",
    "--b1",
    "Content-Type: text/plain",
    "",
    "DMARC aggregate report.",
    "--b1",
    'Content-Type: application/gzip; name="google.com!e2e.example!1!2.xml.gz"',
    "Content-Transfer-Encoding: base64",
    'Content-Disposition: attachment; filename="google.com!e2e.example!1!2.xml.gz"',
    "",
    gz.toString("base64").replace(/(.{76})/g, "$1\r\n"),
    "--b1--",
    "",
  ].join("\r\n");
  const mailed = await fetch(`${s.url}/cdn-cgi/handler/email?from=noreply-dmarc-support%40google.com&to=${encodeURIComponent(address)}`, {
    method: "POST",
    body: mime,
  });
  expect(
    mailed.status < 300,
    "a report mailed to the report address is accepted by the email handler",
    `${mailed.status} ${(await mailed.text()).slice(0, 200)}`,
  );
  const [, view] = await api(`/domains/${id}/dmarc?days=7`);
  expect(view?.data?.summary?.messages === 7, "the mailed report shows in the DMARC view", JSON.stringify(view?.data?.summary));

  // ---- Flooding a starter domain's report address: 429s past the per-reporter limit, nothing else affected.
  const starter = await s.createTeam("starter");
  const [, flood] = await api("/domains", { method: "POST", body: JSON.stringify({ name: "flood.example" }) }, starter.tokens.full.token);
  doh.set(flood.data.verification.host, { TXT: [flood.data.verification.value] });
  await api(`/domains/${flood.data.id}/verify`, { method: "POST" }, starter.tokens.full.token);
  const post = (body) => {
    const sig = createHmac("sha256", INGEST_SECRET).update(body).digest("hex");
    return fetch(`${s.url}/api/webhooks/dmarc`, { method: "POST", headers: { "content-type": "application/json", "x-signature": `sha256=${sig}` }, body });
  };
  const statuses = [];
  for (let i = 0; i < 24; i++) {
    const body = JSON.stringify({
      recipient: flood.data.dmarc_report_address,
      content_base64: Buffer.from(reportXml("flood.example", "flooder.example", `f-${i}`, [["198.51.100.9", 1]])).toString("base64"),
    });
    const res = await post(body);
    statuses.push(res.status);
    if (res.status === 429) expect(Number(res.headers.get("retry-after")) > 0, "a refused flood report carries Retry-After");
  }
  expect(
    statuses.filter((x) => x === 202).length === 20 && statuses.slice(20).every((x) => x === 429),
    "a reporter flooding past 20 reports a day gets 429s",
    statuses.join(","),
  );
  const [, floodView] = await api(`/domains/${flood.data.id}/dmarc?days=7`, {}, starter.tokens.full.token);
  expect(floodView?.data?.summary?.refused?.total >= 4, "refused reports show on the DMARC summary", JSON.stringify(floodView?.data?.summary?.refused));
  const other = await post(
    JSON.stringify({
      recipient: address,
      content_base64: Buffer.from(reportXml("e2e.example", "yahoo.com", `y-${Date.now()}`, [["192.0.2.10", 2]])).toString("base64"),
    }),
  );
  expect(other.status === 202, "another domain's report address is unaffected by the flood", `${other.status}`);
  const [meStatus] = await api("/me");
  expect(meStatus === 200, "the API is unaffected by the flood");

  // ---- An endpoint failing 20 times in a row is disabled and the owner is emailed (written to disk locally).
  const [hs, hook] = await api("/webhooks", { method: "POST", body: JSON.stringify({ url: receiverUrl, events: ["*"] }) });
  expect(hs === 201, "create a webhook endpoint", `${hs} ${JSON.stringify(hook)?.slice(0, 200)}`);
  for (let i = 0; i < 20; i++) await api(`/webhooks/${hook.data.id}/test`, { method: "POST" });
  const [, ep] = await api(`/webhooks/${hook.data.id}`);
  expect(ep?.data?.enabled === false, "20 failed deliveries in a row disable the endpoint", JSON.stringify(ep?.data?.disabled_reason));
  let emailFile = null;
  for (let i = 0; i < 10 && !emailFile; i++) {
    await sleep(300);
    emailFile =
      [...s.log().matchAll(/Text: (\S+)/g)].map((m) => m[1]).find((f) => existsSync(f) && readFileSync(f, "utf8").includes(`${hook.data.id}`)) ?? null;
  }
  expect(emailFile !== null, "the owner notice is written to disk by the local send_email binding", emailFile ?? "no 'Text:' path in the log");

  // ---- Bodies past their cap, 12 MB streamed without Content-Length: 413, and the server still answers
  // (docs/decisions.md D162: a body left half read broke the connection, a 500 "Network connection lost").
  const streamed = (path, headers, total = 12 * 1024 * 1024) =>
    new Promise((resolve) => {
      const req = httpRequest(`${s.url}${path}`, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode, text: text.slice(0, 200) }));
      });
      req.on("error", (e) => resolve({ status: 0, text: String(e) }));
      req.setTimeout(30_000, () => req.destroy(new Error("no answer within 30 s")));
      const piece = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const write = () => {
        while (sent < total) {
          sent += piece.length;
          if (!req.write(piece)) return req.once("drain", write);
        }
        req.end();
      };
      write();
    });
  const bearer = { authorization: `Bearer ${team.tokens.full.token}`, "content-type": "application/json" };
  const capped = [
    ["POST /api/v1/domains (64 KB)", "/api/v1/domains", bearer],
    ["the DMARC intake (10 MB)", "/api/webhooks/dmarc", { "content-type": "application/xml", "x-signature": `sha256=${"0".repeat(64)}` }],
    ["the TLS intake (1 MB)", `/api/webhooks/tlsrpt/${address.split("@")[0]}`, { "content-type": "application/tlsrpt+json" }],
  ];
  for (const [what, path, headers] of capped) {
    const res = await streamed(path, headers);
    expect(res.status === 413 && res.text.includes("payload_too_large"), `12 MB chunked to ${what} is a 413`, `${res.status} ${res.text}`);
    const [alive] = await api("/me");
    expect(alive === 200, `the server still answers after 12 MB to ${what}`, `${alive}`);
  }

  // ---- Every cron schedule of wrangler.toml runs through the scheduled handler.
  const crons = [...readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8").matchAll(/crons = \[([^\]]*)\]/g)].flatMap((m) =>
    [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]),
  );
  for (const cron of crons) {
    const res = await fetch(`${s.url}/__scheduled?cron=${encodeURIComponent(cron)}`);
    expect(res.status === 200, `cron "${cron}" runs`, `${res.status}`);
  }
  const [, intel] = await api("/intel/domain?domain=e2e.example");
  expect(typeof intel?.data?.grade === "string", "intel posture answers");
} catch (error) {
  failures.push(`smoke crashed: ${error instanceof Error ? error.stack : String(error)}`);
  console.error(s.log().slice(-3000));
} finally {
  await s.stop();
  await doh.stop();
  receiver.close();
}

console.log(`\nsmoke: ${passed} passed, ${failures.length} failed`);
for (const f of failures) console.log(`  - ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
