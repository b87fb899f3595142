// createServices(env): what HTTP, queue, cron and email entry points share, so all run the same code.
import { type Config, loadConfig } from "./config";
import { DohResolver, globalFetch } from "./core/dns/doh-resolver";
import { ownZoneBypass, type SharedAnswerCache } from "./core/dns/shared-cache";
import type { Resolver } from "./core/dns/types";
import type { Clock, HttpFetch } from "./core/types";
import { type Db, createDb } from "./db/client";
import type { RateDecision, RateLimits } from "./durable-objects/rate-limiter";
import type { Env } from "./env";
import { edgeDnsCache } from "./services/dns-cache";
import { type QueueProducer, queueProducer } from "./services/enqueue";
import { teamLeases } from "./durable-objects/rate-lease";

export interface RateLimiterPort {
  hit(teamId: number, limits: RateLimits): Promise<RateDecision>;
  usage(teamId: number): Promise<number>;
  /** Counts a failed authentication of one client (by IP); blocked once past `perMinute` this minute. */
  failure(client: string, perMinute: number): Promise<{ blocked: boolean; retryAfterSeconds: number }>;
}

export interface Services {
  env: Env;
  db: Db;
  config: Config;
  clock: Clock;
  rateLimiter: RateLimiterPort;
  /** The only way services put work on a queue (src/services/enqueue.ts). */
  enqueue: QueueProducer;
  /** Outbound HTTPS (MTA-STS policies, BIMI assets, RDAP, webhook deliveries). */
  fetch: HttpFetch;
  /** The DNS answer cache shared across checks and requests (docs/decisions.md D194-D197); null when
   *  DNS_SHARED_CACHE=false. */
  dnsCache: SharedAnswerCache | null;
  /** A fresh resolver: its own cache and query count live as long as one check or one request.
   *  `shared`: also read and fill dnsCache, except for `ownZone` and the names under it (D196). */
  createResolver(opts?: ResolverOptions): Resolver;
}

export interface ResolverOptions {
  shared?: boolean;
  ownZone?: string;
}

const systemClock: Clock = { now: () => new Date() };

export function createServices(env: Env, overrides: Partial<Services> = {}): Services {
  const stub = (teamId: number) => env.RATE_LIMITER.getByName(`team:${teamId}`);
  const config = loadConfig(env);
  const services: Services = {
    env,
    db: createDb(env.DB),
    config,
    clock: systemClock,
    rateLimiter: {
      // Through this isolate's lease (docs/decisions.md D55): most requests do not reach the object.
      hit: (teamId, limits) => teamLeases.hit(teamId, limits, (request) => stub(teamId).lease(request)),
      usage: async (teamId) => (await stub(teamId).usage()) - teamLeases.held(teamId),
      failure: (client, perMinute) => env.RATE_LIMITER.getByName(`auth:${client}`).failure(perMinute),
    },
    enqueue: queueProducer(env),
    fetch: globalFetch,
    dnsCache: config.dnsSharedCache ? edgeDnsCache(config.siteUrl) : null,
    createResolver: (opts = {}) => {
      // The final object's cache and clock, so that an override of either applies here too; the
      // clock that stamps a shared answer is the one that ages it.
      const cache = opts.shared ? services.dnsCache : null;
      const bypass = opts.ownZone ? ownZoneBypass(opts.ownZone) : undefined;
      return new DohResolver({
        endpoints: config.dohResolvers,
        fetch: globalFetch,
        ...(cache ? { shared: { cache, bypass }, now: () => services.clock.now().getTime() } : {}),
      });
    },
    ...overrides,
  };
  return services;
}
