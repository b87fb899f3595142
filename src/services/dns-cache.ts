// The shared DNS answer cache (core/dns/shared-cache.ts port) on the Workers Cache API. Does I/O.
// The Cache API is per data centre, not global, and does nothing on workers.dev hostnames: a
// deployment needs a custom domain for answers to be shared (docs/decisions.md D197, README).
import type { SharedAnswerCache } from "../core/dns/shared-cache";

const STORED_AT = "x-stored-at";

/** `cache` defaults to caches.default, looked up at call time (it exists only inside workerd). */
export function edgeDnsCache(cache?: Cache): SharedAnswerCache {
  const store = () => cache ?? caches.default;
  return {
    async get(key) {
      const res = await store().match(key);
      if (!res) return null;
      const storedAt = Number(res.headers.get(STORED_AT));
      const bytes = new Uint8Array(await res.arrayBuffer());
      // An entry without a readable stamp cannot be aged, so it is a miss.
      return Number.isFinite(storedAt) && storedAt > 0 ? { bytes, storedAt } : null;
    },
    async put(key, bytes, ttlSeconds, storedAt) {
      const headers = {
        "content-type": "application/dns-message",
        // The Cache API drops the entry after max-age; ageMessage refuses it earlier if its own clock says so.
        "cache-control": `max-age=${Math.max(1, Math.floor(ttlSeconds))}`,
        [STORED_AT]: String(storedAt),
      };
      await store().put(key, new Response(bytes, { headers }));
    },
  };
}
