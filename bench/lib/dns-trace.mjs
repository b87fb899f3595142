// Traces the DNS of one posture check for bench/posture: for each query when it was wanted (Resolver.query
// called), when its DoH request left (after any queue for a connection), when the server received and answered
// it and when the answer was back, all relative to the check's start; the answer it waited for (the latest
// answer back before it was wanted: an inference from timing, so a query asked in the same tick as several
// answers names the last of them); and the critical path, followed back from the last answer.
const wire = await import("../../src/core/dns/wire.ts");

const key = (name, type) => `${String(type).toUpperCase()} ${name.toLowerCase().replace(/\.$/, "")}`;

export function createTrace() {
  const wanted = new Map();
  const sent = [];
  return {
    /** A Resolver that notes when each (name, type) is first asked for. */
    resolver(inner) {
      return {
        query(name, type, opts) {
          const k = key(name, type);
          if (!wanted.has(k)) wanted.set(k, performance.now());
          return inner.query(name, type, opts);
        },
        get queriesSent() {
          return inner.queriesSent;
        },
      };
    },
    /** A fetch that notes when each DoH request left and when its answer came back. */
    fetch(inner) {
      return async (url, init) => {
        const q = wire.decodeResponse(new Uint8Array(init.body)).value?.question[0];
        const entry = { key: q ? key(q.name, wire.typeName(q.type)) : "?", sent: performance.now(), back: 0 };
        sent.push(entry);
        const res = await inner(url, init);
        entry.back = performance.now(); // the answer is one small chunk, here with the headers
        return res;
      };
    },
    reset() {
      wanted.clear();
      sent.splice(0);
    },
    /** Rows joined with the server log ({name, type, received, answered}), times relative to t0. */
    rows(serverLog, t0) {
      const server = new Map(serverLog.map((e) => [key(e.name, e.type), e]));
      const rows = sent.map((s) => {
        const srv = server.get(s.key);
        return {
          key: s.key,
          wanted: (wanted.get(s.key) ?? s.sent) - t0,
          sent: s.sent - t0,
          received: srv ? srv.received - t0 : Number.NaN,
          answered: srv ? srv.answered - t0 : Number.NaN,
          back: s.back - t0,
          after: null,
        };
      });
      for (const r of rows) {
        let best = null;
        for (const o of rows) if (o !== r && o.back <= r.wanted && (best === null || o.back > best.back)) best = o;
        r.after = best;
      }
      return rows.sort((a, b) => a.sent - b.sent);
    },
  };
}

/** The chain of answers that ends with the last one back. */
export function criticalPath(rows) {
  let last = null;
  for (const r of rows) if (last === null || r.back > last.back) last = r;
  const path = [];
  for (let r = last; r; r = r.after) path.unshift(r);
  return path;
}

const ms = (v) => (Number.isFinite(v) ? v.toFixed(1) : "-").padStart(6);

export function printTrace(rows) {
  console.log("  wanted   sent  recvd answrd   back  query                                          after the answer to");
  for (const r of rows) {
    console.log(`  ${ms(r.wanted)} ${ms(r.sent)} ${ms(r.received)} ${ms(r.answered)} ${ms(r.back)}  ${r.key.padEnd(46)} ${r.after ? r.after.key : "(start)"}`);
  }
}

/** Where the time of the critical path went: the server's delays, the queue for a connection, and the rest (our CPU and the loopback HTTP). */
export function printCriticalPath(path, delayMs) {
  console.log(`critical path (${path.length} answers): ${path.map((r) => `${r.key} ${r.wanted.toFixed(0)}->${r.back.toFixed(0)}`).join(" | ")}`);
  let queued = 0;
  let prevBack = 0;
  let between = 0;
  let roundTrip = 0;
  for (const r of path) {
    between += r.wanted - prevBack;
    queued += r.sent - r.wanted;
    roundTrip += r.back - r.sent - delayMs;
    prevBack = r.back;
  }
  console.log(
    `  of ${prevBack.toFixed(1)} ms: answers delayed ${path.length} x ${delayMs} ms; queued for a connection ${queued.toFixed(1)} ms; request and answer handling beyond the delay ${roundTrip.toFixed(1)} ms; answer back to next query wanted ${between.toFixed(1)} ms`,
  );
}
