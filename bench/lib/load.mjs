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
