// The one road for a team credential on every face: authenticate the bearer value (a team token,
// docs/decisions.md D2) and count a call against the team's per-minute limit and monthly quota
// through the team's RateLimiter Durable Object (D5). REST and the agent endpoint (D40) both come here.
import { eq } from "drizzle-orm";
import { teams } from "../../db/schema";
import type { RateDecision } from "../../durable-objects/rate-limiter";
import { PLAN_LIMITS } from "../../lib/plans";
import type { Services } from "../../services";
import type { TeamFacts } from "../context";
import { type AuthenticatedToken, authenticateToken } from "./tokens";

export type { AuthenticatedToken };

/** The presented value as a team token, or null (unknown, revoked or not a team token at all). */
export const authenticateTeamToken = (svc: Services, presented: string): Promise<AuthenticatedToken | null> => authenticateToken(svc, presented);

/** Counts one call for the team under its plan's limits; `allowed: false` says why and for how long. */
export function countCall(svc: Services, team: Pick<TeamFacts, "id" | "plan">): Promise<RateDecision> {
  const limits = PLAN_LIMITS[team.plan];
  return svc.rateLimiter.hit(team.id, { perMinute: limits.requests_per_minute, perMonth: limits.requests_per_month });
}

/** The message a refused call carries, the same words as the REST 429. */
export const refusalMessage = (decision: RateDecision) =>
  decision.reason === "quota_exceeded" ? "Monthly request quota exhausted for this plan." : "Rate limit exceeded; retry after the window resets.";

/** The team's facts by id (for credentials that name a team but do not carry its plan), or null. */
export async function teamFacts(svc: Services, teamId: number): Promise<TeamFacts | null> {
  const row = await svc.db.query.teams.findFirst({
    where: eq(teams.id, teamId),
    columns: { id: true, name: true, plan: true, ownerEmail: true },
  });
  return row ?? null;
}
