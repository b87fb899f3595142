// Teams: creation with a first pair of tokens, plan changes, the account view. Does I/O (D1).
import { eq } from "drizzle-orm";
import { notFound } from "../../lib/errors";
import { PLAN_LIMITS } from "../../lib/plans";
import { type Plan, teams } from "../../db/schema";
import type { Services } from "../../services";
import { forgetVerifiedTokens, type IssuedToken, issueToken } from "./tokens";
import { teamLeases } from "../../durable-objects/rate-lease";

export interface TeamView {
  id: number;
  name: string;
  plan: Plan;
  owner_email: string;
  created_at: string;
}

type TeamRow = typeof teams.$inferSelect;
export const teamView = (t: TeamRow): TeamView => ({
  id: t.id,
  name: t.name,
  plan: t.plan,
  owner_email: t.ownerEmail,
  created_at: t.createdAt.toISOString(),
});

export async function createTeam(
  svc: Services,
  input: { name: string; plan: Plan; owner_email: string },
): Promise<{ team: TeamView; tokens: { full: IssuedToken; read_only: IssuedToken } }> {
  const [row] = await svc.db
    .insert(teams)
    .values({ name: input.name, plan: input.plan, ownerEmail: input.owner_email, createdAt: svc.clock.now() })
    .returning();
  if (!row) throw new Error("team insert returned no row");
  const full = await issueToken(svc, row.id, "full", "Default full-access token", "operator");
  const readOnly = await issueToken(svc, row.id, "read_only", "Default read-only token", "operator");
  return { team: teamView(row), tokens: { full, read_only: readOnly } };
}

export async function changePlan(svc: Services, teamId: number, plan: Plan): Promise<TeamView> {
  const [row] = await svc.db.update(teams).set({ plan }).where(eq(teams.id, teamId)).returning();
  forgetVerifiedTokens({ teamId }); // cached verifications carry the plan (docs/decisions.md D51)
  teamLeases.drop(teamId); // the next request asks for permits under the new limits (D55)
  if (!row) throw notFound("Team");
  return teamView(row);
}

export const limitsFor = (plan: Plan) => PLAN_LIMITS[plan];
