// createServices(env): what HTTP, queue, cron and email entry points share, so all run the same code.
import { type Config, loadConfig } from "./config";
import type { Clock } from "./core/types";
import { type Db, createDb } from "./db/client";
import type { RateDecision, RateLimits } from "./durable-objects/rate-limiter";
import type { Env } from "./env";

export interface RateLimiterPort {
  hit(teamId: number, limits: RateLimits): Promise<RateDecision>;
  usage(teamId: number): Promise<number>;
}

export interface Services {
  env: Env;
  db: Db;
  config: Config;
  clock: Clock;
  rateLimiter: RateLimiterPort;
}

const systemClock: Clock = { now: () => new Date() };

export function createServices(env: Env, overrides: Partial<Services> = {}): Services {
  const stub = (teamId: number) => env.RATE_LIMITER.getByName(`team:${teamId}`);
  return {
    env,
    db: createDb(env.DB),
    config: loadConfig(env),
    clock: systemClock,
    rateLimiter: {
      hit: (teamId, limits) => stub(teamId).hit(limits),
      usage: (teamId) => stub(teamId).usage(),
    },
    ...overrides,
  };
}
