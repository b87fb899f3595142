// Domain registration expiry over RDAP (RFC 9224 bootstrap, RFC 9083 events), cached in public_cache. Does I/O (HTTPS via svc.fetch, D1).
import { fetchTextCapped } from "../../core/net/http";
import { DAY_MS, HOUR_MS } from "../../lib/time";
import type { Services } from "../../services";
import { cacheGet, cachePut } from "./cache";

export const IANA_DNS_BOOTSTRAP = "https://data.iana.org/rdap/dns.json";
const FETCH_TIMEOUT_MS = 5_000;
const MAX_BODY = 2_000_000;

export type Expiry =
  | { status: "found"; expiresAt: Date }
  /** Definitive: no RDAP service for the TLD, no such registration, or no expiration event. */
  | { status: "none" }
  /** Network failure, timeout or a malformed answer: try again later. */
  | { status: "unknown"; reason: string };

type Bootstrap = Record<string, string[]>; // tld -> base URLs

/** RDAP answers through the shared capped fetch: the body is never read past MAX_BODY bytes. */
async function getJson(svc: Services, url: string): Promise<{ status: number; body: unknown } | { error: string }> {
  const got = await fetchTextCapped(svc.fetch, url, {
    timeoutMs: FETCH_TIMEOUT_MS,
    maxBytes: MAX_BODY,
    accept: "application/rdap+json, application/json",
    maxRedirects: 3,
  });
  if (!got.ok) return { error: got.error };
  if (got.value.status !== 200) return { status: got.value.status, body: null };
  if (got.value.tooLarge) return { error: "answer too large" };
  try {
    return { status: 200, body: JSON.parse(got.value.body) as unknown };
  } catch (e) {
    return { error: String(e) };
  }
}

/** RFC 9224 §4: services is [[tlds...], [urls...]]; only https URLs are used (RFC 9224 §5 prefers them). */
async function bootstrap(svc: Services, now: Date): Promise<Bootstrap | null> {
  const cached = await cacheGet<Bootstrap>(svc, "rdap_bootstrap", "dns", now);
  if (cached) return cached;
  const got = await getJson(svc, IANA_DNS_BOOTSTRAP);
  if ("error" in got || got.status !== 200) return null;
  const services = (got.body as { services?: unknown }).services;
  if (!Array.isArray(services)) return null;
  const map: Bootstrap = {};
  for (const entry of services) {
    if (!Array.isArray(entry) || !Array.isArray(entry[0]) || !Array.isArray(entry[1])) continue;
    const urls = (entry[1] as unknown[]).filter((u): u is string => typeof u === "string" && u.startsWith("https://"));
    for (const tld of entry[0] as unknown[]) if (typeof tld === "string" && urls.length > 0) map[tld.toLowerCase()] = urls;
  }
  await cachePut(svc, "rdap_bootstrap", "dns", map, new Date(now.getTime() + DAY_MS));
  return map;
}

function expirationOf(body: unknown): Date | null {
  const events = (body as { events?: unknown }).events;
  if (!Array.isArray(events)) return null;
  for (const e of events) {
    const ev = e as { eventAction?: unknown; eventDate?: unknown };
    if (ev.eventAction === "expiration" && typeof ev.eventDate === "string") {
      const d = new Date(ev.eventDate);
      if (!Number.isNaN(d.getTime())) return d;
    }
  }
  return null;
}

/** Expiry of `name`'s registration; a subdomain falls back to its parents until an RDAP server knows one. */
export async function registrationExpiry(svc: Services, name: string, now: Date): Promise<Expiry> {
  const cached = await cacheGet<{ expires_at: string | null }>(svc, "rdap_expiry", name, now);
  if (cached) return cached.expires_at ? { status: "found", expiresAt: new Date(cached.expires_at) } : { status: "none" };
  const map = await bootstrap(svc, now);
  if (!map) return { status: "unknown", reason: "RDAP bootstrap unavailable" };
  const labels = name.split(".");
  const base = map[labels[labels.length - 1] ?? ""]?.[0];
  let result: Expiry = { status: "none" };
  if (base) {
    // Registered domains have at least two labels; try at most three candidates, longest first.
    for (let i = 0; i <= Math.min(2, labels.length - 2); i++) {
      const candidate = labels.slice(i).join(".");
      const got = await getJson(svc, `${base.replace(/\/?$/, "/")}domain/${candidate}`);
      if ("error" in got) return { status: "unknown", reason: got.error };
      if (got.status === 404) continue;
      if (got.status !== 200) return { status: "unknown", reason: `RDAP answered ${got.status}` };
      const at = expirationOf(got.body);
      result = at ? { status: "found", expiresAt: at } : { status: "none" };
      break;
    }
  }
  const value = { expires_at: result.status === "found" ? result.expiresAt.toISOString() : null };
  await cachePut(svc, "rdap_expiry", name, value, new Date(now.getTime() + (result.status === "found" ? DAY_MS : 12 * HOUR_MS)));
  return result;
}
