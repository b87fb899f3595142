// The shared DNS answer cache (core/dns/shared-cache.ts port) on the Workers Cache API. Does I/O.
// The Cache API is per data centre, not global, and does nothing on workers.dev hostnames: a
// deployment needs a custom domain for answers to be shared (docs/decisions.md D197, README).
import type { SharedAnswerCache } from "../core/dns/shared-cache";

const STORED_AT = "x-stored-at";

/** Where a core key (`https://dns-cache.invalid/v1/...`) is kept: on the deployment's own origin
 *  (SITE_URL), under a path the site never serves. The Cache API resolves a key's host that is not the
 *  Worker's own, a DNS lookup on every call (docs/decisions.md D277). Without SITE_URL (local
 *  development, tests: the local runtime looks nothing up) the core key is used as it is. */
export function cacheUrl(key: string, origin: string | null): string {
  if (!origin) return key;
  const k = new URL(key);
  return `${new URL(origin).origin}/_dns-cache${k.pathname}${k.search}`;
}

/** `origin`: SITE_URL. `cache` defaults to caches.default, looked up at call time (it exists only inside workerd). */
export function edgeDnsCache(origin: string | null = null, cache?: Cache): SharedAnswerCache {
  const store = () => cache ?? caches.default;
  return {
    async get(key) {
      const res = await store().match(cacheUrl(key, origin));
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
      await store().put(cacheUrl(key, origin), new Response(bytes, { headers }));
    },
  };
}
