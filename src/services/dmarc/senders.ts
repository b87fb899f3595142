// Identifies who is behind source IPs: forward-confirmed reverse DNS matched against the curated
// table, then the providers' published SPF ranges; both cached a day in public_cache. Does I/O (DNS, D1).
import { and, eq, inArray } from "drizzle-orm";
import type { Resolver } from "../../core/dns/types";
import { reverseName } from "../../core/dns/reverse";
import { analyzeSpf } from "../../core/spf/analyze";
import { inCidr, parseIp, type Ip } from "../../core/spf/ip";
import { publicCache } from "../../db/schema";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { commitAll } from "../commit";
import { KNOWN_SENDERS, senderByPtr } from "./sender-table";

export interface SourceIdentity {
  /** Forward-confirmed PTR name (FCrDNS: the name's A/AAAA includes the IP), else null. */
  ptr: string | null;
  sender: string | null;
  via: "ptr" | "spf" | null;
}

export const SENDER_LIMITS = {
  /** PTR (plus forward) lookups per request; the rest stay unnamed until a later request. */
  ptrPerRequest: 25,
  /** Provider SPF trees resolved per request when not cached. */
  spfProvidersPerRequest: 4,
  /** Parallel lookups: Workers allow 6 open connections per invocation. */
  concurrency: 6,
  cacheMs: DAY_MS,
} as const;

interface PtrEntry {
  name: string | null;
}
interface SpfEntry {
  networks: string[];
}

async function pool<T>(items: T[], n: number, f: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (i < items.length) {
        const item = items[i++] as T;
        await f(item);
      }
    }),
  );
}

const sameIp = (a: Ip | null, b: Ip | null) => a !== null && b !== null && a.version === b.version && a.bytes.every((x, k) => x === b.bytes[k]);

/** FCrDNS (RFC 8601 §3 "iprev"): null when nothing confirms, undefined on a temperror (not cached). */
async function confirmedPtr(resolver: Resolver, ip: string): Promise<string | null | undefined> {
  const rev = reverseName(ip);
  if (!rev.ok) return null;
  const ptr = await resolver.query(rev.value, "PTR");
  if (ptr.kind === "temperror") return undefined;
  if (ptr.kind !== "records") return null;
  const want = parseIp(ip);
  for (const name of ptr.records.slice(0, 2)) {
    const fwd = await resolver.query(name, want?.version === 6 ? "AAAA" : "A");
    if (fwd.kind === "temperror") return undefined;
    if (fwd.kind === "records" && fwd.records.some((a) => sameIp(parseIp(a), want))) return name;
  }
  return null;
}

async function readCache<T>(svc: Services, kind: string, keys: string[]): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  const now = svc.clock.now().getTime();
  for (let i = 0; i < keys.length; i += 90) {
    const rows = await svc.db
      .select()
      .from(publicCache)
      .where(and(eq(publicCache.kind, kind), inArray(publicCache.key, keys.slice(i, i + 90))));
    for (const r of rows) if (r.expiresAt.getTime() > now) out.set(r.key, r.value as T);
  }
  return out;
}

async function writeCache(svc: Services, kind: string, entries: Array<[string, unknown]>): Promise<void> {
  if (entries.length === 0) return;
  const expiresAt = new Date(svc.clock.now().getTime() + SENDER_LIMITS.cacheMs);
  const stmts = entries.map(([key, value]) =>
    svc.db
      .insert(publicCache)
      .values({ kind, key, value, expiresAt })
      .onConflictDoUpdate({ target: [publicCache.kind, publicCache.key], set: { value, expiresAt } }),
  );
  await commitAll(svc, stmts).catch(() => undefined); // a cache write never fails the request
}

export async function identifySources(
  svc: Services,
  ips: string[],
  resolver: Resolver = svc.createResolver({ shared: true }),
): Promise<Map<string, SourceIdentity>> {
  const out = new Map<string, SourceIdentity>(ips.map((ip) => [ip, { ptr: null, sender: null, via: null }]));
  const cached = await readCache<PtrEntry>(svc, "ptr", ips);
  const todo = ips.filter((ip) => !cached.has(ip)).slice(0, SENDER_LIMITS.ptrPerRequest);
  const fresh: Array<[string, PtrEntry]> = [];
  await pool(todo, SENDER_LIMITS.concurrency, async (ip) => {
    const name = await confirmedPtr(resolver, ip);
    if (name === undefined) return;
    cached.set(ip, { name });
    fresh.push([ip, { name }]);
  });
  await writeCache(svc, "ptr", fresh);
  for (const ip of ips) {
    const name = cached.get(ip)?.name ?? null;
    const sender = name ? senderByPtr(name) : null;
    out.set(ip, { ptr: name, sender: sender?.name ?? null, via: sender ? "ptr" : null });
  }

  const unknown = ips.filter((ip) => out.get(ip)?.sender === null);
  const ranges = unknown.length === 0 ? [] : await providerRanges(svc, resolver);
  await resolver.settled?.(); // shared-cache writes finish before the request ends
  for (const ip of unknown) {
    const parsed = parseIp(ip);
    if (parsed === null) continue;
    const hit = ranges.find((r) => r.nets.some((n) => inCidr(parsed, n.net, n.prefix)));
    const cur = out.get(ip);
    if (hit && cur) out.set(ip, { ...cur, sender: hit.sender, via: "spf" });
  }
  return out;
}

/** Flattened ip4/ip6 networks of each provider's documented SPF include (src/core/spf analyzeSpf). */
async function providerRanges(svc: Services, resolver: Resolver) {
  const providers = KNOWN_SENDERS.filter((s) => s.spfInclude !== null);
  const cached = await readCache<SpfEntry>(
    svc,
    "sender_spf",
    providers.map((p) => p.name),
  );
  const todo = providers.filter((p) => !cached.has(p.name)).slice(0, SENDER_LIMITS.spfProvidersPerRequest);
  const fresh: Array<[string, SpfEntry]> = [];
  await pool(todo, SENDER_LIMITS.concurrency, async (p) => {
    const a = await analyzeSpf(p.spfInclude ?? "", resolver);
    if (a.status === "temperror") return;
    const entry = { networks: a.networks.map((n) => n.cidr).slice(0, 2000) };
    cached.set(p.name, entry);
    fresh.push([p.name, entry]);
  });
  await writeCache(svc, "sender_spf", fresh);
  return providers.map((p) => ({
    sender: p.name,
    nets: (cached.get(p.name)?.networks ?? []).flatMap((cidr) => {
      const [addr = "", len = ""] = cidr.split("/");
      const net = parseIp(addr);
      const prefix = len === "" ? (net?.version === 6 ? 128 : 32) : Number(len);
      return net && Number.isInteger(prefix) ? [{ net, prefix }] : [];
    }),
  }));
}
