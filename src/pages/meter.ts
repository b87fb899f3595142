// The dashboard's tools are metered like the API (docs/decisions.md D147): every page action that does
// work (DNS lookups, crypto, a check, an upload, an outbound delivery) counts one call against the
// team's per-minute limit and monthly quota through the same verb and the same RateLimiter object as
// REST and the agent endpoint, so the three faces share one budget. A refusal is a 429 page that says
// when to try again, with Retry-After (RFC 9110 §10.2.3).
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import type { SignedIn } from "../services/accounts/sessions";
import { countCall, refusalMessage } from "../services/teams/bearer";

/** "in 50 seconds", "in 3 minutes", or the UTC time for a wait of hours or more (a spent monthly quota). */
function whenAgain(seconds: number, now: Date): string {
  if (seconds < 120) return `in ${seconds} second${seconds === 1 ? "" : "s"}`;
  if (seconds < 3600) return `in ${Math.ceil(seconds / 60)} minutes`;
  const at = new Date(now.getTime() + seconds * 1000).toISOString();
  return `after ${at.slice(0, 10)} ${at.slice(11, 16)} UTC`;
}

/** Counts one call for the signed-in team; throws the 429 page's error when the limit or quota refuses it. */
export async function meterPage(c: Context<AppEnv>, s: SignedIn): Promise<void> {
  const svc = c.get("services");
  const decision = await countCall(svc, { id: s.teamId, plan: s.teamPlan });
  if (decision.allowed) return;
  throw new ApiError(
    429,
    decision.reason ?? "rate_limited",
    `${refusalMessage(decision)} The dashboard's tools share your team's API allowance. Try again ${whenAgain(decision.retryAfterSeconds, svc.clock.now())}.`,
    undefined,
    { "Retry-After": String(decision.retryAfterSeconds) },
  );
}
