// Shared helpers of the chaos suite (scripts/chaos/run.mjs): a tally per section, HTTP calls that
// never throw, and polling. Only loopback addresses are contacted.

/** One section of the summary table: cases run, failures (with what failed), time spent. */
export function createTally() {
  const sections = [];
  return {
    sections,
    section(name) {
      const s = { name, cases: 0, failures: [], ms: 0, started: performance.now() };
      sections.push(s);
      return {
        /** Records one case; a failed one keeps its description for the report. */
        check(ok, what, detail = "") {
          s.cases++;
          if (!ok) {
            s.failures.push(detail ? `${what}: ${detail}` : what);
            if (process.env.CHAOS_VERBOSE) console.log(`FAIL [${name}] ${what} ${detail}`);
          }
          return ok;
        },
        fail(what, detail = "") {
          return this.check(false, what, detail);
        },
        done() {
          s.ms = performance.now() - s.started;
        },
      };
    },
  };
}

/** Prints the summary table; returns the number of failures. */
export function printSummary(tally, totalMs) {
  const rows = tally.sections.map((s) => [s.name, String(s.cases), String(s.failures.length), `${(s.ms / 1000).toFixed(1)} s`]);
  const total = tally.sections.reduce((a, s) => [a[0] + s.cases, a[1] + s.failures.length], [0, 0]);
  rows.push(["total", String(total[0]), String(total[1]), `${(totalMs / 1000).toFixed(1)} s`]);
  const head = ["section", "cases", "failures", "time"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  console.log(`\n${line(head)}\n|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
  for (const s of tally.sections) {
    if (s.failures.length === 0) continue;
    console.log(`\n${s.name}: ${s.failures.length} failure(s)`);
    const shown = s.failures.slice(0, 25);
    for (const f of shown) console.log(`  - ${f.length > 400 ? `${f.slice(0, 400)}…` : f}`);
    if (s.failures.length > shown.length) console.log(`  … and ${s.failures.length - shown.length} more`);
  }
  return total[1];
}

/**
 * One HTTP call that never throws: { status, headers, text, json, ms } (status 0 on a network error).
 * `body` is sent as JSON unless `raw` is given (then `contentType` says what it is).
 */
export async function call(base, method, path, { token, body, raw, contentType, headers = {}, timeoutMs = 30_000 } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let payload;
  if (raw !== undefined) {
    payload = raw;
    if (contentType) h["content-type"] = contentType;
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    h["content-type"] = contentType ?? "application/json";
  }
  const started = performance.now();
  try {
    const res = await fetch(`${base}${path}`, { method, headers: h, body: payload, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let json;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, headers: new Headers(), text: String(error), json: undefined, ms: performance.now() - started };
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes; returns the last value. */
export async function waitFor(probe, { timeoutMs = 30_000, everyMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last || Date.now() > deadline) return last;
    await sleep(everyMs);
  }
}

/** A 4xx answer must be the one error envelope (docs/decisions.md D1): JSON with string message and code. */
export function isErrorEnvelope(res) {
  return (
    (res.headers.get("content-type") ?? "").includes("application/json") &&
    typeof res.json?.message === "string" &&
    res.json.message.length > 0 &&
    typeof res.json?.code === "string" &&
    res.json.code.length > 0
  );
}
