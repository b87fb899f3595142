// Failed authentication is throttled per client before it costs anything: a client past its budget
// of failures in a minute (counted by the rate-limiter Durable Object named "auth:<ip>") is refused
// with 429 by every request that reaches this isolate until the minute ends, without a D1 query.
// docs/limits.md lists the budgets.
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import { clientAddress } from "../services/audit/origin";

/** Failed bearer-token presentations allowed per client per minute (/api/v1). */
export const TOKEN_FAILURES_PER_MINUTE = 60;
/** Failed admin-token presentations allowed per client per minute (/admin). */
export const ADMIN_FAILURES_PER_MINUTE = 20;

const blockedUntil = new Map<string, number>();
const MAX_BLOCKED = 10_000;

/** The client as Cloudflare reports it (not spoofable behind Cloudflare); "unknown" elsewhere. */
export const clientOf = (c: Context<AppEnv>): string => clientAddress(c.req.raw.headers) ?? "unknown";

const tooMany = (retryAfterSeconds: number) =>
  new ApiError(429, "rate_limited", "Too many failed authentications from this client; retry later.", undefined, { "Retry-After": String(retryAfterSeconds) });

/** Throws 429 when this client is known to be over its failure budget (no I/O). */
export function refuseIfBlocked(scope: string, client: string, now = Date.now()): void {
  const until = blockedUntil.get(`${scope}:${client}`);
  if (until === undefined) return;
  if (until > now) throw tooMany(Math.ceil((until - now) / 1000));
  blockedUntil.delete(`${scope}:${client}`);
}

/** Records one failure; throws 429 when it crossed the budget, else returns so the caller answers 401. */
export async function recordFailure(c: Context<AppEnv>, scope: string, perMinute: number): Promise<void> {
  const client = clientOf(c);
  const decision = await c.get("services").rateLimiter.failure(`${scope}:${client}`, perMinute);
  if (!decision.blocked) return;
  if (blockedUntil.size >= MAX_BLOCKED) blockedUntil.clear();
  blockedUntil.set(`${scope}:${client}`, Date.now() + decision.retryAfterSeconds * 1000);
  throw tooMany(decision.retryAfterSeconds);
}
