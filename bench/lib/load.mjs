// A bounded closed-loop HTTP load generator: `concurrency` workers, `total` requests, latency percentiles.
export async function load({ total, concurrency, request }) {
  const latencies = [];
  const statuses = new Map();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        const res = await request(i);
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { total, rps: total / seconds, p50: pct(50), p99: pct(99), statuses: Object.fromEntries(statuses) };
}

export const fmt = (r) =>
  `${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms   statuses ${JSON.stringify(r.statuses)}`;

/** Several load() runs of one side as one: requests added, req/s averaged, p50 the median, p99 the worst. */
export const mergeRuns = (runs) => ({
  total: runs.reduce((a, r) => a + r.total, 0),
  rps: runs.reduce((a, r) => a + r.rps, 0) / runs.length,
  p50: [...runs.map((r) => r.p50)].sort((a, b) => a - b)[Math.floor(runs.length / 2)],
  p99: Math.max(...runs.map((r) => r.p99)),
  statuses: runs.reduce((a, r) => {
    for (const [k, v] of Object.entries(r.statuses)) a[k] = (a[k] ?? 0) + v;
    return a;
  }, {}),
});

/**
 * `rounds` rounds of each side's load run, in order on even rounds and reversed on odd ones, so neither side
 * always runs first (or warm after the other); one merged result per side.
 */
export async function alternateLoads(sides, rounds) {
  const runs = sides.map(() => []);
  const order = sides.map((_, i) => i);
  for (let r = 0; r < rounds; r++) for (const i of r % 2 === 0 ? order : [...order].reverse()) runs[i].push(await sides[i]());
  return runs.map(mergeRuns);
}
