// Read/write of the public_cache table (public data shared by every team, with an expiry). Does I/O (D1).
import { and, eq, gt } from "drizzle-orm";
import { publicCache } from "../../db/schema";
import type { Services } from "../../services";

export async function cacheGet<T>(svc: Services, kind: string, key: string, now: Date): Promise<T | null> {
  const row = await svc.db
    .select({ value: publicCache.value })
    .from(publicCache)
    .where(and(eq(publicCache.kind, kind), eq(publicCache.key, key), gt(publicCache.expiresAt, now)))
    .get();
  return row ? (row.value as T) : null;
}

export async function cachePut(svc: Services, kind: string, key: string, value: unknown, expiresAt: Date): Promise<void> {
  await svc.db
    .insert(publicCache)
    .values({ kind, key, value, expiresAt })
    .onConflictDoUpdate({ target: [publicCache.kind, publicCache.key], set: { value, expiresAt } });
}
