// The Resolver over DNS-over-HTTPS endpoints: fallback, in-flight de-duplication, TTL-bounded cache
// and CNAME chasing. Does network I/O through the injected fetch.
import type { HttpFetch } from "../types";
import { cnameHops, negativeTtl, positiveTtl, rrset } from "./answer";
import { classifyMessage, dohExchange, type Exchange } from "./doh-client";
import { QueryLimiter } from "./limiter";
import { ageMessage, cacheableTtl, type SharedAnswerCache, sharedCacheKey, storedBytes } from "./shared-cache";
import type { Lookup, QueryOptions, QueryPriority, RecordData, RecordType, Resolver } from "./types";
import { canonicalName, TYPE, typeNumber } from "./wire";

export const DEFAULT_RESOLVERS = ["https://cloudflare-dns.com/dns-query", "https://dns.google/dns-query"];

/** DOH_RESOLVERS setting: comma-separated http(s) URLs; anything else is dropped, and an empty
 *  result falls back to the defaults rather than leaving the service without DNS. */
export function parseResolverList(setting: string | undefined): string[] {
  const urls = (setting ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => {
      try {
        const u = new URL(s);
        return u.protocol === "https:" || u.protocol === "http:";
      } catch {
        return false;
      }
    });
  return urls.length > 0 ? urls : [...DEFAULT_RESOLVERS];
}

/** Calls the global fetch at call time, so a test's fetch spy installed later still applies. */
export const globalFetch: HttpFetch = (input, init) => fetch(input, init);

export interface DohResolverOptions {
  endpoints: string[];
  fetch: HttpFetch;
  /** Per HTTP request (AbortSignal.timeout). Default 2500 ms. */
  timeoutMs?: number;
  /** Default 8 (docs/decisions.md D20). */
  maxCnameHops?: number;
  /** Milliseconds clock for cache expiry; defaults to Date.now. */
  now?: () => number;
  /** Requests in flight at once; the rest wait in the resolver's queue. Default 6, a Worker's
   *  connections (docs/decisions.md D20, D63). */
  maxInFlight?: number;
  /** The answer cache shared across checks and requests (docs/decisions.md D194-D197), read after
   *  this instance's own cache misses and before the network. `bypass(name)`: names that always go
   *  to the network and are never stored (a domain's own records after its owner edits them). */
  shared?: { cache: SharedAnswerCache; bypass?: (name: string) => boolean };
}

/** A Worker opens at most 6 connections at once (docs/decisions.md D20). */
export const MAX_QUERIES_IN_FLIGHT = 6;

type Settled = Exclude<Exchange, { kind: "temperror" }>;
type Failed = { kind: "temperror"; reason: string };

export class DohResolver implements Resolver {
  private sent = 0;
  private hits = 0;
  private sharedFailed = false;
  private readonly puts = new Set<Promise<void>>();
  private readonly shared: DohResolverOptions["shared"];
  private readonly order: string[];
  private readonly fetch: HttpFetch;
  private readonly timeoutMs: number;
  private readonly maxHops: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, { expires: number; value: Settled }>();
  private readonly inflight = new Map<string, Promise<Settled | Failed>>();
  private readonly limiter: QueryLimiter;

  constructor(opts: DohResolverOptions) {
    this.order = [...opts.endpoints];
    this.fetch = opts.fetch;
    this.timeoutMs = opts.timeoutMs ?? 2500;
    this.maxHops = opts.maxCnameHops ?? 8;
    this.now = opts.now ?? Date.now;
    this.limiter = new QueryLimiter(opts.maxInFlight ?? MAX_QUERIES_IN_FLIGHT);
    this.shared = opts.shared;
  }

  /** Questions sent to a DoH endpoint; answers from the shared cache are not counted. */
  get queriesSent(): number {
    return this.sent;
  }

  /** Answers taken from the shared cache instead of the network. */
  get sharedHits(): number {
    return this.hits;
  }

  /** Resolves once every shared-cache write this resolver started has finished (or failed). */
  async settled(): Promise<void> {
    while (this.puts.size > 0) await Promise.all([...this.puts]);
  }

  async query<T extends RecordType>(name: string, type: T, opts: QueryOptions = {}): Promise<Lookup<RecordData[T]>> {
    const priority = opts.priority ?? "normal";
    const chain: string[] = [];
    const seen = new Set<string>();
    // The canonical presentation form keeps the cache key, loop detection and the answer's owner
    // names in one spelling ("a b" and "a\\032b" are one name); an unencodable name stays as given.
    let current = canonicalName(name) ?? name.toLowerCase().replace(/\.$/, "");
    let chainTtl = Number.POSITIVE_INFINITY;
    // Authenticated only when every answer followed was (RFC 6840 §5.7): one unsigned hop proves nothing.
    let ad = true;
    // A chain that starts at a name that bypasses the shared cache is that name's record wherever it
    // points (a DMARC or DKIM record hosted behind a CNAME): its targets bypass it too (D275).
    const fresh = this.shared?.bypass?.(current) ?? false;
    seen.add(current);
    for (;;) {
      const ex = await this.exchange(current, type, priority, fresh);
      if (ex.kind === "temperror") return { kind: "temperror", reason: ex.reason };
      ad &&= ex.message.header.flags.ad;
      const authenticated = ad ? { authenticated: true } : {};
      const before = chain.length;
      // A CNAME query asks for the alias itself; any other type follows the chain (RFC 1034 §3.6.2).
      for (const hop of type === "CNAME" ? [] : cnameHops(ex.message.answer, current)) {
        if (seen.has(hop.target)) return { kind: "temperror", reason: `CNAME loop at ${hop.target}` };
        if (chain.length >= this.maxHops) {
          return { kind: "temperror", reason: `CNAME chain longer than ${this.maxHops} hops` };
        }
        seen.add(hop.target);
        chain.push(hop.target);
        chainTtl = Math.min(chainTtl, hop.ttl);
        current = hop.target;
      }
      const { records, ttl } = rrset(ex.message.answer, current, type);
      if (records.length > 0) return { kind: "records", records, ttl: Math.min(ttl, chainTtl), chain, ...authenticated };
      // RFC 6604 §2: with a chain, NXDOMAIN describes the last name of the chain.
      if (ex.kind === "nxdomain") return { kind: "nxdomain", chain, ...authenticated };
      // The chain ended in a CNAME without the target's records. An SOA in the authority section
      // is the resolver's NODATA proof for the target (RFC 2308 §2.2); without one the server did
      // not chase the alias, so ask for the target itself.
      if (chain.length > before && !ex.message.authority.some((r) => r.type === TYPE.SOA)) continue;
      return { kind: "nodata", chain, ...authenticated };
    }
  }

  /** One answer for (name, type): from the cache, from a request already in flight, or fresh. */
  private exchange(name: string, type: RecordType, priority: QueryPriority, fresh: boolean): Promise<Settled | Failed> {
    // An answer read from the shared cache never stands in for one that must be fresh.
    const key = `${name} ${type}${fresh ? " fresh" : ""}`;
    const hit = this.cache.get(key);
    if (hit && hit.expires > this.now()) return Promise.resolve(hit.value);
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const started = this.sharedOrNetwork(name, type, priority, fresh).then((ex) => {
      this.inflight.delete(key);
      if (ex.kind !== "temperror") {
        const ttl = ex.kind === "records" ? positiveTtl(ex.message) : negativeTtl(ex.message);
        if (ttl > 0) this.cache.set(key, { expires: this.now() + ttl * 1000, value: ex });
      }
      return ex;
    });
    this.inflight.set(key, started);
    return started;
  }

  /** The shared cache first (unless the name or the chain it is on bypasses it), then the network; a
   *  definitive network answer is stored for what is left of its TTL (D196). A failing store is a miss,
   *  never a failure. */
  private async sharedOrNetwork(name: string, type: RecordType, priority: QueryPriority, fresh: boolean): Promise<Settled | Failed> {
    const shared = this.shared && !fresh && !this.shared.bypass?.(name) ? this.shared.cache : null;
    if (!shared) return this.fallback(name, type, priority);
    const key = sharedCacheKey(name, type, { ad: true }, this.order);
    // Cache API calls hold one of the Worker's 6 connections as a fetch does, so they take a slot of
    // the resolver's queue too (D63): the read at the lookup's priority, the write as a leaf.
    const kept = await this.limiter.run(priority, () => this.bounded(shared.get(key))).catch((e: unknown) => this.sharedError("read", e));
    if (kept) {
      const aged = ageMessage(kept.bytes, kept.storedAt, this.now());
      // Checked like a network answer: an entry for another question (a collision, a corrupt
      // store) or anything not definitive is a miss.
      const ex = aged ? classifyMessage(aged, name, typeNumber(type), "shared cache") : null;
      if (ex && ex.kind !== "temperror") {
        this.hits++;
        return ex;
      }
    }
    const ex = await this.fallback(name, type, priority);
    const ttl = ex.kind === "temperror" ? 0 : cacheableTtl(ex);
    const bytes = ttl > 0 && ex.kind !== "temperror" ? storedBytes(ex.message) : null;
    if (bytes) {
      // Not awaited: the answer is not held back by the write; settled() waits for the writes.
      const storedAt = this.now();
      const put = this.limiter
        .run("leaf", () => this.bounded(shared.put(key, bytes, ttl, storedAt)))
        .catch((e: unknown) => void this.sharedError("write", e))
        .finally(() => this.puts.delete(put));
      this.puts.add(put);
    }
    return ex;
  }

  /** A cache call gets no longer than a DoH request (timeoutMs): one that never settles would hold a
   *  slot of the queue and the lookup (or settled()) for good; given up, it is a failing cache, a miss. */
  private bounded<T>(call: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([call, late]).finally(() => clearTimeout(timer));
  }

  private sharedError(what: string, e: unknown): null {
    if (!this.sharedFailed) console.warn(`dns shared cache ${what} failed, using the network: ${e instanceof Error ? e.message : String(e)}`);
    this.sharedFailed = true;
    return null;
  }

  /** Endpoints in order; any temperror moves on to the next, the first definitive answer wins. */
  private async fallback(name: string, type: RecordType, priority: QueryPriority): Promise<Settled | Failed> {
    if (this.order.length === 0) return { kind: "temperror", reason: "no DNS-over-HTTPS endpoints configured" };
    const reasons: string[] = [];
    for (const endpoint of [...this.order]) {
      // Through the resolver's queue (D63): the request's timeout starts when it leaves, not while it waits.
      const ex = await this.limiter.run(priority, () => dohExchange(endpoint, name, type, { fetch: this.fetch, timeoutMs: this.timeoutMs }));
      if (ex.kind !== "temperror") {
        this.sent++;
        return ex;
      }
      if (ex.cause === "query") return { kind: "temperror", reason: ex.reason };
      this.sent++;
      reasons.push(ex.reason);
      // An unreachable or slow endpoint will likely stay so for this short-lived instance:
      // try it last from now on instead of paying its timeout on every query.
      if (ex.cause === "network") this.demote(endpoint);
    }
    return { kind: "temperror", reason: reasons.join("; ") };
  }

  private demote(endpoint: string): void {
    const i = this.order.indexOf(endpoint);
    if (i >= 0 && i < this.order.length - 1) this.order.push(...this.order.splice(i, 1));
  }
}
