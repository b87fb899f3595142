// The account view of the calling credential. Pure: built from what the face learned while authenticating.
import type { TokenScope } from "../../db/schema";
import { PLAN_LIMITS } from "../../lib/plans";
import type { TeamFacts } from "../context";

export interface AccountInput {
  team: TeamFacts;
  token: { id: number; name: string; scope: TokenScope; prefix: string };
  /** Requests counted this month (from the rate limiter's answer), 0 when unknown. */
  quotaUsed: number;
}

export function getAccount(input: AccountInput) {
  const { team, token } = input;
  const limits = PLAN_LIMITS[team.plan];
  const used = input.quotaUsed;
  return {
    team: { id: team.id, name: team.name, plan: team.plan, owner_email: team.ownerEmail },
    plan: team.plan,
    limits,
    token: { id: token.id, name: token.name, scope: token.scope, prefix: token.prefix },
    usage: { requests_this_month: used, requests_remaining_this_month: Math.max(0, limits.requests_per_month - used) },
  };
}
