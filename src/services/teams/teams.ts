// Teams: creation with a first pair of tokens, plan changes, the account view. Does I/O (D1).
import { eq, sql } from "drizzle-orm";
import { notFound } from "../../lib/errors";
import { PLAN_LIMITS } from "../../lib/plans";
import { type Plan, teams } from "../../db/schema";
import type { Services } from "../../services";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import type { ServiceContext } from "../context";
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

/** The operator makes a team (the admin API): the team and its first entry in one batch, then its two tokens. */
export async function createTeam(
  svc: Services,
  input: { name: string; plan: Plan; owner_email: string },
  /** The operator acting on a team (the admin face builds it from the request). */
  by: (teamId: number) => ServiceContext,
): Promise<{ team: TeamView; tokens: { full: IssuedToken; read_only: IssuedToken } }> {
  const [[row]] = await commit(svc, [
    svc.db.insert(teams).values({ name: input.name, plan: input.plan, ownerEmail: input.owner_email, createdAt: svc.clock.now() }).returning(),
    auditWhen(
      svc,
      by(0),
      { verb: "team.create", target: { type: "team", id: 0 }, summary: `team "${input.name}" on the ${input.plan} plan for ${input.owner_email}` },
      { teamId: sql`last_insert_rowid()`, targetId: sql`last_insert_rowid()` },
    ),
  ]);
  if (!row) throw new Error("team insert returned no row");
  const full = await issueToken(svc, row.id, "full", "Default full-access token", "operator", by(row.id));
  const readOnly = await issueToken(svc, row.id, "read_only", "Default read-only token", "operator", by(row.id));
  return { team: teamView(row), tokens: { full, read_only: readOnly } };
}

/** The operator moves a team to another plan; a move to the plan it is on changes and records nothing. */
export async function changePlan(svc: Services, teamId: number, plan: Plan, by: ServiceContext): Promise<TeamView> {
  const before = await svc.db.query.teams.findFirst({ where: eq(teams.id, teamId), columns: { plan: true } });
  if (!before) throw notFound("Team");
  const [, [row]] = await commit(svc, [
    auditWhen(
      svc,
      by,
      { verb: "team.plan_change", target: { type: "team", id: teamId }, summary: `plan ${before.plan} -> ${plan}` },
      { when: sql`EXISTS (SELECT 1 FROM teams WHERE id = ${teamId} AND plan <> ${plan})` },
    ),
    svc.db.update(teams).set({ plan }).where(eq(teams.id, teamId)).returning(),
  ]);
  forgetVerifiedTokens({ teamId }); // cached verifications carry the plan (docs/decisions.md D51)
  teamLeases.drop(teamId); // the next request asks for permits under the new limits (D55)
  if (!row) throw notFound("Team");
  return teamView(row);
}

export const limitsFor = (plan: Plan) => PLAN_LIMITS[plan];
