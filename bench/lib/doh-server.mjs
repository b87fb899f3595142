// A real local DNS-over-HTTPS server for benchmarks: RFC 8484 POST application/dns-message on
// 127.0.0.1, answering from a zone map with an added delay per answer. Loopback only; no upstream.
// Zone format: { "name": { A?: [], AAAA?: [], CNAME?: "t", MX?: [{preference, exchange}], TXT?: [string | string[]], NS?: [] } };
// names absent from the zone are NXDOMAIN. Encoding reuses the project's codec (src/core/dns/wire.ts, via tsx).
import { createServer } from "node:http";

const wire = await import("../../src/core/dns/wire.ts");
const { CLASS_IN, RCODE, TYPE, decodeResponse, encodeResponse, typeName } = wire;

const norm = (n) => n.toLowerCase().replace(/\.$/, "");

function soa(name) {
  const apex = name.split(".").slice(-2).join(".");
  return {
    name: apex,
    type: TYPE.SOA,
    class: CLASS_IN,
    ttl: 3600,
    data: { kind: "SOA", mname: `ns1.${apex}`, rname: `hostmaster.${apex}`, serial: 1, refresh: 7200, retry: 900, expire: 1209600, minimum: 60 },
  };
}

/** What a recursive resolver returns: the CNAME chain, then the RRset; SOA in negative answers (RFC 2308 §3). */
function answerFor(zone, qname, qtype, ttl) {
  const answer = [];
  const rr = (name, type, data) => ({ name, type, class: CLASS_IN, ttl, data });
  const seen = new Set([qname]);
  let current = qname;
  for (;;) {
    const entry = zone.get(current);
    if (!entry) return { rcode: RCODE.NXDOMAIN, answer, authority: [soa(current)] };
    if (entry.CNAME !== undefined && qtype !== TYPE.CNAME) {
      const target = norm(entry.CNAME);
      answer.push(rr(current, TYPE.CNAME, { kind: "CNAME", target }));
      if (seen.has(target)) return { rcode: RCODE.NOERROR, answer, authority: [] };
      seen.add(target);
      current = target;
      continue;
    }
    const out = [];
    const add = (type, data) => out.push(rr(current, type, data));
    if (qtype === TYPE.A) for (const address of entry.A ?? []) add(TYPE.A, { kind: "A", address });
    if (qtype === TYPE.AAAA) for (const address of entry.AAAA ?? []) add(TYPE.AAAA, { kind: "AAAA", address });
    if (qtype === TYPE.CNAME && entry.CNAME !== undefined) add(TYPE.CNAME, { kind: "CNAME", target: norm(entry.CNAME) });
    if (qtype === TYPE.MX) for (const m of entry.MX ?? []) add(TYPE.MX, { kind: "MX", preference: m.preference, exchange: norm(m.exchange) });
    if (qtype === TYPE.TXT) for (const t of entry.TXT ?? []) add(TYPE.TXT, { kind: "TXT", strings: typeof t === "string" ? chunk(t) : t });
    if (qtype === TYPE.NS) for (const target of entry.NS ?? []) add(TYPE.NS, { kind: "NS", target: norm(target) });
    return { rcode: RCODE.NOERROR, answer: [...answer, ...out], authority: out.length > 0 ? [] : [soa(current)] };
  }
}

/** A zone-file TXT string holds at most 255 octets (RFC 1035 §3.3.14). */
const chunk = (s) => (s.length <= 255 ? [s] : s.match(/[\s\S]{1,255}/g));

/** Faults a test can inject per query (scripts/chaos): what a broken upstream sends instead of the answer. */
export const FAULTS = ["servfail", "timeout", "truncated", "garbage", "wrong-id"];

/**
 * The bytes (or silence) a fault puts on the wire in place of the good answer `good`, for query `id`.
 * servfail: RCODE 2; timeout: no answer at all (null); truncated: TC set and the answer section
 * dropped, as a server that ran out of room sends it (RFC 1035 §4.1.1, RFC 2181 §9); garbage: random bytes of a plausible size;
 * wrong-id: the right answer under another message id (RFC 8484 §4.1 asks for id 0).
 */
function faultBytes(fault, q, id, good) {
  if (fault === "timeout") return null;
  if (fault === "garbage") return new Uint8Array(Array.from({ length: 48 }, () => Math.floor(Math.random() * 256)));
  if (fault === "servfail") {
    const r = encodeResponse({ header: { id, rcode: RCODE.SERVFAIL, flags: { rd: true } }, question: [q], answer: [], authority: [] });
    return r.ok ? r.value : new Uint8Array(0);
  }
  if (fault === "truncated") {
    const r = encodeResponse({ header: { id, rcode: RCODE.NOERROR, flags: { rd: true, tc: true } }, question: [q], answer: [], authority: [] });
    return r.ok ? r.value : new Uint8Array(0);
  }
  if (fault === "wrong-id") {
    const r = encodeResponse({
      header: { id: (id + 4242) & 0xffff || 1, rcode: good.rcode, flags: { rd: true } },
      question: [q],
      answer: good.answer,
      authority: good.authority,
    });
    return r.ok ? r.value : new Uint8Array(0);
  }
  throw new Error(`unknown DNS fault ${fault}`);
}

/**
 * startDohServer({ zone, delayMs = 20, ttl = 300, port = 0, fault }) → { url, port, log, reset(), stop() }.
 * `log` holds one entry per query: { name, type, received, answered, fault } (ms, performance.now()).
 * `fault(name, type)` (optional, also settable with setFault) returns one of FAULTS or null.
 */
export async function startDohServer({ zone, delayMs = 20, ttl = 300, port = 0, fault = null }) {
  let faultFor = fault;
  const map = new Map(Object.entries(zone).map(([k, v]) => [norm(k), v]));
  const log = [];
  const server = createServer((req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/dns-query")) {
      res.writeHead(req.method === "POST" ? 404 : 405).end();
      return;
    }
    const parts = [];
    req.on("data", (d) => parts.push(d));
    req.on("end", () => {
      const received = performance.now();
      const decoded = decodeResponse(new Uint8Array(Buffer.concat(parts)));
      const q = decoded.ok ? decoded.value.question[0] : undefined;
      if (!q) {
        res.writeHead(400).end("bad DNS query");
        return;
      }
      const entry = { name: norm(q.name), type: typeName(q.type), received, answered: 0 };
      log.push(entry);
      const a = answerFor(map, entry.name, q.type, ttl);
      const injected = faultFor ? faultFor(entry.name, entry.type) : null;
      if (injected) {
        entry.fault = injected;
        const raw = faultBytes(injected, q, decoded.value.header.id, a);
        if (raw === null) return; // timeout: hold the request open until the client gives up
        res.writeHead(200, { "content-type": "application/dns-message", "content-length": raw.length }).end(raw);
        entry.answered = performance.now();
        return;
      }
      const bytes = encodeResponse({
        header: { id: decoded.value.header.id, rcode: a.rcode, flags: { rd: true } },
        question: [q],
        answer: a.answer,
        authority: a.authority,
      });
      setTimeout(() => {
        entry.answered = performance.now();
        if (!bytes.ok) res.writeHead(500).end(bytes.error);
        else res.writeHead(200, { "content-type": "application/dns-message", "content-length": bytes.value.length }).end(bytes.value);
      }, delayMs);
    });
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = server.address().port;
  return {
    port: actual,
    url: `http://127.0.0.1:${actual}/dns-query`,
    log,
    reset: () => log.splice(0),
    /** Publishes (or replaces) a name's records while the server runs. */
    set: (name, records) => map.set(norm(name), records),
    /** A name's records as published now (undefined when absent). */
    get: (name) => map.get(norm(name)),
    /** Removes a name (NXDOMAIN from now on). */
    remove: (name) => map.delete(norm(name)),
    /** Replaces the fault function (null: every answer healthy). */
    setFault: (fn) => {
      faultFor = fn;
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(resolve);
      }),
  };
}

/** Observed sequential depth: a query's level is 1 + the highest level among queries answered before it arrived. */
export function observedDepth(log) {
  const sorted = [...log].sort((a, b) => a.received - b.received);
  const levels = [];
  for (const q of sorted) {
    let lvl = 1;
    for (let i = 0; i < levels.length; i++) {
      const p = sorted[i];
      if (p.answered > 0 && p.answered <= q.received) lvl = Math.max(lvl, levels[i] + 1);
    }
    levels.push(lvl);
  }
  return Math.max(0, ...levels);
}
