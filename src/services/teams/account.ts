// The account view of the calling token. Pure: built from the authenticated context.
import type { AuthContext } from "../../context";
import { PLAN_LIMITS } from "../../lib/plans";

export function getAccount(auth: AuthContext) {
  const limits = PLAN_LIMITS[auth.team.plan];
  const used = auth.rate?.quotaUsed ?? 0;
  return {
    team: { id: auth.team.id, name: auth.team.name, plan: auth.team.plan, owner_email: auth.team.ownerEmail },
    plan: auth.team.plan,
    limits,
    token: { id: auth.token.id, name: auth.token.name, scope: auth.token.scope, prefix: auth.token.prefix },
    usage: { requests_this_month: used, requests_remaining_this_month: Math.max(0, limits.requests_per_month - used) },
  };
}
