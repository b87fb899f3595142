// Tenant fairness inside one deliveries batch: each endpoint gets at most PER_ENDPOINT attempts now,
// the rest wait a few seconds for a later batch, and attempts run with bounded concurrency, so one
// team's slow receivers cannot use up the Worker's outbound connections and time out another team's
// deliveries (docs/limits.md). The endpoint comes from each message (no read). No I/O.

/** Attempts per endpoint in one batch. */
export const PER_ENDPOINT = 2;
/** Attempts in flight at once per batch (the Workers runtime allows 6 open outbound connections). */
export const BATCH_CONCURRENCY = 6;
/** How long a deferred attempt waits before its next batch. */
export const DEFER_SECONDS = 5;

/** Splits the batch's deliveries (in order) into those to attempt now and those to send again later. */
export function planDeliveryBatch<T extends { endpoint_id: number }>(items: readonly T[]): { now: T[]; later: T[] } {
  const taken = new Map<number, number>();
  const now: T[] = [];
  const later: T[] = [];
  for (const item of items) {
    const n = taken.get(item.endpoint_id) ?? 0;
    if (n < PER_ENDPOINT) {
      taken.set(item.endpoint_id, n + 1);
      now.push(item);
    } else later.push(item);
  }
  return { now, later };
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
