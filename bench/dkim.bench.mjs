// Issue 4: DKIM verification throughput and CPU per message (2 KB, 100 KB, 1 MB; one and three
// signatures), and key generation time per algorithm. In-process (Node + tsx, the same WebCrypto
// code the Worker runs); keys come from memory, and one row goes through a local DoH server.
import { createServer } from "node:http";

const dkim = await import("../src/core/dkim/index.ts");
const wire = await import("../src/core/dns/wire.ts");
const { DohResolver } = await import("../src/core/dns/doh-resolver.ts");

const DOMAIN = "bench.example";
const orgDomain = async (d) => d.split(".").slice(-2).join(".");

/** A resolver answering TXT from a map, with no network and no cache (each query costs a lookup). */
function memoryResolver(zone) {
  return {
    queriesSent: 0,
    async query(name, type) {
      this.queriesSent++;
      const v = type === "TXT" ? zone.get(name.toLowerCase()) : undefined;
      return v ? { kind: "records", records: [v], ttl: 300, chain: [] } : { kind: "nxdomain", chain: [] };
    },
  };
}

/** RFC 8484 DoH over plain HTTP on 127.0.0.1, answering TXT from the same map. */
async function startDoh(zone) {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const q = wire.decodeResponse(new Uint8Array(Buffer.concat(chunks)));
    const question = q.ok ? q.value.question[0] : undefined;
    if (!question) return res.writeHead(400).end();
    const value = zone.get(question.name.toLowerCase().replace(/\.$/, ""));
    const answer =
      value && question.type === wire.TYPE.TXT
        ? [{ name: question.name, type: wire.TYPE.TXT, class: wire.CLASS_IN, ttl: 300, data: { kind: "TXT", strings: dkim.txtStrings(value) } }]
        : [];
    const out = wire.encodeResponse({
      header: { id: q.value.header.id, rcode: answer.length ? 0 : 3, flags: { rd: true } },
      question: [question],
      answer,
      authority: [],
    });
    res.writeHead(200, { "content-type": "application/dns-message" }).end(Buffer.from(out.value));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/dns-query`, close: () => new Promise((r) => server.close(r)) };
}

function message(bytes) {
  const head = [
    `From: Alice <alice@${DOMAIN}>`,
    "To: bob@example.net",
    "Subject: benchmark",
    "Date: Sun, 01 Mar 2026 11:59:00 +0000",
    `Message-ID: <bench@${DOMAIN}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "",
  ].join("\r\n");
  const line = "Lorem ipsum dolor sit amet,  consectetur adipiscing elit, sed do eiusmod tempor.\r\n";
  return head + line.repeat(Math.max(1, Math.floor((bytes - head.length) / line.length)));
}

const SIGNERS = [
  { algorithm: "rsa-2048", sig: "rsa-sha256", canonicalization: "relaxed/relaxed" },
  { algorithm: "ed25519", sig: "ed25519-sha256", canonicalization: "relaxed/relaxed" },
  { algorithm: "rsa-2048", sig: "rsa-sha256", canonicalization: "simple/simple" },
];

async function measure(fn, { minMs = 1500, minRuns = 5 } = {}) {
  for (let i = 0; i < 2; i++) await fn(); // warm-up
  let runs = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (runs < minRuns || performance.now() - t0 < minMs) {
    await fn();
    runs++;
  }
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { runs, perSec: runs / (wall / 1000), wallMs: wall / runs, cpuMs: (cpu.user + cpu.system) / 1000 / runs };
}

const pad = (s, n) => String(s).padEnd(n);
const num = (x, d = 2) => x.toFixed(d).padStart(9);

export default async function run() {
  const zone = new Map();
  const keys = [];
  for (const [i, s] of SIGNERS.entries()) {
    const g = await dkim.generateKeyPair({ domain: DOMAIN, selector: `b${i}`, algorithm: s.algorithm });
    keys.push(g.value);
    zone.set(g.value.dns.host, g.value.dns.value);
  }
  const sign = async (raw, n) => {
    let m = raw;
    for (let i = 0; i < n; i++) {
      const s = SIGNERS[i];
      const r = await dkim.signMessage(m, {
        domain: DOMAIN,
        selector: `b${i}`,
        privateKey: keys[i].private_key_pem,
        algorithm: s.sig,
        canonicalization: s.canonicalization,
      });
      m = r.value;
    }
    return m;
  };

  console.log("verification (Node WebCrypto, single thread; keys answered from memory unless noted)");
  console.log(`${pad("message", 10)}${pad("signatures", 34)}${"verif/s".padStart(9)}${"CPU ms/msg".padStart(12)}${"wall ms/msg".padStart(13)}  runs`);
  const doh = await startDoh(zone);
  try {
    for (const [label, size] of [
      ["2 KB", 2048],
      ["100 KB", 100 * 1024],
      ["1 MB", 1000 * 1024],
    ]) {
      for (const n of [1, 3]) {
        const msg = await sign(message(size), n);
        const resolver = memoryResolver(zone);
        const check = async () => {
          const r = await dkim.verifyMessage(msg, { resolver, now: new Date(), orgDomain });
          if (r.result !== "pass" || r.signatures.some((s) => s.result !== "pass"))
            throw new Error(`bench message did not verify: ${JSON.stringify(r.signatures.map((s) => s.reason))}`);
        };
        const m = await measure(check);
        const what = n === 1 ? "1 (rsa-2048 relaxed)" : "3 (rsa-2048 r/r, ed25519, rsa s/s)";
        console.log(`${pad(label, 10)}${pad(what, 34)}${num(m.perSec, 0)}${num(m.cpuMs).padStart(12)}${num(m.wallMs).padStart(13)}  ${m.runs}`);
      }
    }
    // The same 2 KB / 3-signature case with every key fetched over DoH (fresh resolver: no cache).
    const msg = await sign(message(2048), 3);
    const m = await measure(async () => {
      const r = await dkim.verifyMessage(msg, {
        resolver: new DohResolver({ endpoints: [doh.url], fetch: (i, init) => fetch(i, init) }),
        now: new Date(),
        orgDomain,
      });
      if (r.result !== "pass") throw new Error("DoH bench message did not verify");
    });
    console.log(`${pad("2 KB", 10)}${pad("3, keys via local DoH", 34)}${num(m.perSec, 0)}${num(m.cpuMs).padStart(12)}${num(m.wallMs).padStart(13)}  ${m.runs}`);
  } finally {
    await doh.close();
  }

  console.log("\nkey generation (generateKeyPair: WebCrypto generate + export + fingerprint)");
  console.log(`${pad("algorithm", 10)}${"runs".padStart(6)}${"mean ms".padStart(10)}${"p50 ms".padStart(10)}${"max ms".padStart(10)}`);
  for (const [algorithm, runs] of [
    ["ed25519", 200],
    ["rsa-1024", 30],
    ["rsa-2048", 20],
    ["rsa-4096", 6],
  ]) {
    const times = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const r = await dkim.generateKeyPair({ domain: DOMAIN, selector: "gen", algorithm });
      if (!r.ok) throw new Error(r.error);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / runs;
    console.log(
      `${pad(algorithm, 10)}${String(runs).padStart(6)}${num(mean).padStart(10)}${num(times[Math.floor(runs / 2)]).padStart(10)}${num(times[runs - 1]).padStart(10)}`,
    );
  }
}
