// Bearer team-token authentication, per-team rate limit and quota, and token scopes (docs/decisions.md D2). Hot path: no I/O while the isolate holds a lease of permits (D55) and the token is cached (D51); else one Durable Object call and one D1 read.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { ApiError, forbidden, unauthenticated } from "../lib/errors";
import { PLAN_LIMITS } from "../lib/plans";
import { requestOrigin, tokenLabel } from "../services/audit/origin";
import { authenticateToken, touchToken } from "../services/teams/tokens";
import { clientOf, recordFailure, refuseIfBlocked, TOKEN_FAILURES_PER_MINUTE } from "./failure-gate";

/** The compute-only POSTs a read-only token may call (docs/decisions.md D2); every GET is allowed too. */
const READ_ONLY_POSTS = new Set(["/api/v1/dkim/verify", "/api/v1/dkim/generate", "/api/v1/intel/emails", "/api/v1/messages/audit"]);

export const readOnlyMayCall = (method: string, path: string) =>
  method === "GET" || method === "HEAD" || (method === "POST" && READ_ONLY_POSTS.has(path.replace(/\/+$/, "")));

function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}

export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const svc = c.get("services");
  const presented = bearer(c.req.header("authorization"));
  if (!presented) throw unauthenticated();
  refuseIfBlocked("token", clientOf(c));
  const found = await authenticateToken(svc, presented);
  if (!found) {
    await recordFailure(c, "token", TOKEN_FAILURES_PER_MINUTE);
    throw unauthenticated();
  }

  const limits = PLAN_LIMITS[found.team.plan];
  const rate = await svc.rateLimiter.hit(found.team.id, {
    perMinute: limits.requests_per_minute,
    perMonth: limits.requests_per_month,
  });
  c.header("X-RateLimit-Limit", String(rate.limit));
  c.header("X-RateLimit-Remaining", String(rate.remaining));
  c.header("X-RateLimit-Reset", String(rate.resetSeconds));
  c.header("X-Quota-Limit", String(rate.quotaLimit));
  c.header("X-Quota-Used", String(rate.quotaUsed));
  c.set("auth", { teamId: found.team.id, team: found.team, token: found.token, rate });
  c.set("ctx", {
    teamId: found.team.id,
    scope: found.token.scope,
    actor: { kind: "token", id: String(found.token.id) },
    origin: requestOrigin(c.req.raw.headers, "api", tokenLabel(found.token)),
  });

  if (!rate.allowed) {
    const message = rate.reason === "quota_exceeded" ? "Monthly request quota exhausted for this plan." : "Rate limit exceeded; retry after the window resets.";
    throw new ApiError(429, rate.reason ?? "rate_limited", message, undefined, { "Retry-After": String(rate.retryAfterSeconds) });
  }
  if (found.token.scope === "read_only" && !readOnlyMayCall(c.req.method, c.req.path)) {
    throw forbidden("A read-only token may call GET operations and POST /dkim/verify, /dkim/generate, /intel/emails and /messages/audit only.");
  }
  c.executionCtx.waitUntil(touchToken(svc, found.token.id, found.token.lastUsedAt).catch(() => undefined));
  await next();
});
