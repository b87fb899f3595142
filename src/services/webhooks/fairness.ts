// Tenant fairness inside one deliveries batch: each endpoint gets at most PER_ENDPOINT attempts now,
// the rest wait a few seconds for a later batch, and attempts run with bounded concurrency, so one
// team's slow receivers cannot use up the Worker's outbound connections and time out another team's
// deliveries (docs/limits.md). Does I/O (D1 read).
import { inArray } from "drizzle-orm";
import { deliveries } from "../../db/schema";
import type { Services } from "../../services";

/** Attempts per endpoint in one batch. */
export const PER_ENDPOINT = 2;
/** Attempts in flight at once per batch (the Workers runtime allows 6 open outbound connections). */
export const BATCH_CONCURRENCY = 6;
/** How long a deferred attempt waits before its next batch. */
export const DEFER_SECONDS = 5;

/** Splits the batch's deliveries into those to attempt now and those to send again later. */
export async function planDeliveryBatch(svc: Services, ids: number[]): Promise<{ now: Set<number>; later: number[] }> {
  if (ids.length === 0) return { now: new Set(), later: [] };
  const rows = await svc.db.select({ id: deliveries.id, endpointId: deliveries.endpointId }).from(deliveries).where(inArray(deliveries.id, ids));
  const endpointOf = new Map(rows.map((r) => [r.id, r.endpointId]));
  const taken = new Map<number, number>();
  const now = new Set<number>();
  const later: number[] = [];
  for (const id of ids) {
    const endpoint = endpointOf.get(id);
    // Unknown rows are attempted: deliverOne finds them gone and does nothing.
    if (endpoint === undefined) {
      now.add(id);
      continue;
    }
    const n = taken.get(endpoint) ?? 0;
    if (n < PER_ENDPOINT) {
      taken.set(endpoint, n + 1);
      now.add(id);
    } else later.push(id);
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
