// Teams seen from the people in them (docs/decisions.md D32): sign-in completion (first sign-in makes a
// starter team with the user as owner), memberships, invitations, role changes, leaving, deleting a
// team. The owner alone manages members and deletes the team; exactly one owner per team, and
// teams.owner_email follows the owner (it is where owner notices go). Does I/O (D1).
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import { domains, type MemberRole, memberships, signInLinks, teams, users } from "../../db/schema";
import { ApiError, forbidden, notFound } from "../../lib/errors";
import type { Services } from "../../services";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import type { CallOrigin, ServiceContext } from "../context";
import { afterCredentialsRevoked, countMemberCredentials, type MemberCredentials, revokeMemberTokens } from "../credentials/member-credentials";
import { domainStore } from "../domains/domain-store";
import { teamLog } from "../webhooks/team-log";
import { consumeLink } from "./links";
import { ssoGateFor, ssoRequiredMessage } from "./sso-gate";
import type { SignedIn } from "./sessions";
import { refuseWhileTeamHosts } from "../mta-sts-hosting/team-guard";

export interface Membership {
  teamId: number;
  teamName: string;
  role: MemberRole;
}

export async function listMemberships(svc: Services, userId: number): Promise<Membership[]> {
  return svc.db
    .select({ teamId: memberships.teamId, teamName: teams.name, role: memberships.role })
    .from(memberships)
    .innerJoin(teams, eq(teams.id, memberships.teamId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(teams.name), asc(teams.id));
}

export async function findOrCreateUser(svc: Services, email: string): Promise<number> {
  const now = svc.clock.now();
  const [row] = await svc.db
    .insert(users)
    .values({ email, createdAt: now, lastSignInAt: now })
    .onConflictDoUpdate({ target: users.email, set: { lastSignInAt: now } })
    .returning({ id: users.id });
  if (!row) throw new Error("user upsert returned no row");
  return row.id;
}

/** A new starter team owned by the user; the team and its first audit entry are one batch. */
export async function createOwnedTeam(svc: Services, userId: number, email: string, name: string, origin?: CallOrigin): Promise<number> {
  const now = svc.clock.now();
  const [[team]] = await commit(svc, [
    svc.db.insert(teams).values({ name, plan: "starter", ownerEmail: email, createdAt: now }).returning({ id: teams.id }),
    auditWhen(
      svc,
      memberContext(0, userId, email, origin),
      { verb: "team.create", target: { type: "team", id: 0 }, summary: `team "${name}" on the starter plan, owned by ${email}` },
      { teamId: sql`last_insert_rowid()`, targetId: sql`last_insert_rowid()` },
    ),
  ]);
  if (!team) throw new Error("team insert returned no row");
  await svc.db.insert(memberships).values({ teamId: team.id, userId, role: "owner", createdAt: now });
  return team.id;
}

/**
 * Redeems a mailed link: the user is found or created; an invitation adds the membership; a first
 * sign-in claims the teams an operator made for this owner address, or else creates a starter team.
 * Null when the link is unknown, used or expired.
 */
/** A person acting for themselves before they have a session (sign-in, joining), for the audit log. */
const memberContext = (teamId: number, userId: number, email: string, origin?: CallOrigin): ServiceContext => ({
  teamId,
  scope: "read_only",
  actor: { kind: "session", id: String(userId) },
  ...(origin ? { origin: { ...origin, label: email } } : {}),
});

export async function completeLink(
  svc: Services,
  token: string,
  origin?: CallOrigin,
): Promise<{ userId: number; teamId: number | null; next: string | null } | null> {
  const link = await consumeLink(svc, token);
  if (!link) return null;
  // A link mailed before enforcement was turned on opens no session for a covered address (D247).
  const gate = await ssoGateFor(svc, link.email);
  const blocked = gate !== null && !gate.ownerExempt;
  if (blocked && link.purpose !== "invite") throw forbidden(ssoRequiredMessage(gate.issuerHost));
  const userId = await findOrCreateUser(svc, link.email);
  const now = svc.clock.now();

  if (link.purpose === "invite" && link.teamId !== null && link.role !== null) {
    // An invitation never demotes or promotes an existing member, and never creates a second owner.
    const role = link.role === "owner" ? "admin" : link.role;
    // Recorded only when the invitation added the membership (an existing member's role stays as it was).
    await commit(svc, [
      svc.db.insert(memberships).values({ teamId: link.teamId, userId, role, createdAt: now }).onConflictDoNothing(),
      auditWhen(
        svc,
        memberContext(link.teamId, userId, link.email, origin),
        { verb: "member.join", target: { type: "member", id: link.email }, summary: `${link.email} joined as ${role} by invitation` },
        { when: sql`changes() > 0` },
      ),
    ]);
    // Under enforcement the invitation still makes the membership; the person then signs in through the provider.
    if (blocked) throw forbidden(`You joined the team. ${ssoRequiredMessage(gate.issuerHost)}`);
    return { userId, teamId: link.teamId, next: link.next };
  }
  if (blocked) throw forbidden(ssoRequiredMessage(gate.issuerHost));

  const mine = await listMemberships(svc, userId);
  if (mine.length > 0) return { userId, teamId: mine[0]?.teamId ?? null, next: link.next };

  // Teams made through the admin API name their owner by address only: the owner's first sign-in claims them.
  const unclaimed = await svc.db
    .select({ id: teams.id })
    .from(teams)
    .where(
      and(
        eq(teams.ownerEmail, link.email),
        sql`NOT EXISTS (SELECT 1 FROM ${memberships} WHERE ${memberships.teamId} = ${teams.id} AND ${memberships.role} = 'owner')`,
      ),
    );
  if (unclaimed.length > 0) {
    // Each claimed team records its owner's arrival (only where this insert made the membership).
    await commit(svc, [
      svc.db
        .insert(memberships)
        .values(unclaimed.map((t) => ({ teamId: t.id, userId, role: "owner" as const, createdAt: now })))
        .onConflictDoNothing(),
      ...unclaimed.map((t) =>
        auditWhen(
          svc,
          memberContext(t.id, userId, link.email, origin),
          { verb: "member.join", target: { type: "member", id: link.email }, summary: `${link.email} claimed the team as its owner (first sign-in)` },
          {
            when: sql`EXISTS (SELECT 1 FROM memberships WHERE team_id = ${t.id} AND user_id = ${userId} AND role = 'owner' AND created_at = ${now.getTime()})`,
          },
        ),
      ),
    ]);
    return { userId, teamId: unclaimed[0]?.id ?? null, next: link.next };
  }
  const teamId = await createOwnedTeam(svc, userId, link.email, `${link.email.slice(0, link.email.indexOf("@"))}'s team`, origin);
  return { userId, teamId, next: link.next };
}

function requireOwner(signedIn: SignedIn): void {
  if (signedIn.role !== "owner") throw forbidden("Only the team owner manages members and the team itself.");
}

export interface MemberView {
  userId: number;
  email: string;
  role: MemberRole;
  since: Date;
}

export async function listMembers(svc: Services, signedIn: SignedIn): Promise<MemberView[]> {
  return svc.db
    .select({ userId: users.id, email: users.email, role: memberships.role, since: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.teamId, signedIn.teamId))
    .orderBy(asc(users.email));
}

export async function listPendingInvitations(svc: Services, signedIn: SignedIn) {
  return svc.db
    .select({ id: signInLinks.id, email: signInLinks.email, role: signInLinks.role, expiresAt: signInLinks.expiresAt })
    .from(signInLinks)
    .where(
      and(eq(signInLinks.teamId, signedIn.teamId), eq(signInLinks.purpose, "invite"), isNull(signInLinks.usedAt), gt(signInLinks.expiresAt, svc.clock.now())),
    )
    .orderBy(asc(signInLinks.email));
}

export async function cancelInvitation(svc: Services, signedIn: SignedIn, linkId: number): Promise<void> {
  requireOwner(signedIn);
  const invitation = and(eq(signInLinks.id, linkId), eq(signInLinks.teamId, signedIn.teamId), eq(signInLinks.purpose, "invite"));
  const found = await svc.db.query.signInLinks.findFirst({ where: invitation, columns: { email: true, role: true } });
  if (!found) throw notFound("Invitation");
  const [, rows] = await commit(svc, [
    auditWhen(
      svc,
      signedIn.ctx,
      {
        verb: "member.invitation_cancel",
        target: { type: "member", id: found.email },
        summary: `invitation of ${found.email} as ${found.role ?? "member"} cancelled`,
      },
      { when: sql`EXISTS (SELECT 1 FROM sign_in_links WHERE ${invitation})` },
    ),
    svc.db.delete(signInLinks).where(invitation).returning({ id: signInLinks.id }),
  ]);
  if (rows.length === 0) throw notFound("Invitation");
}

async function memberOf(svc: Services, teamId: number, userId: number) {
  const m = await svc.db.query.memberships.findFirst({ where: and(eq(memberships.teamId, teamId), eq(memberships.userId, userId)) });
  if (!m) throw notFound("Member");
  return m;
}

/** A role that may make tokens and full agent grants (owner and admin act as `full`, D32). */
const canWrite = (role: MemberRole) => role !== "viewer";

/** What removing a member, or making them a viewer, would revoke (for the owner's confirmation page, D152). */
export async function memberCredentialsPreview(
  svc: Services,
  signedIn: SignedIn,
  userId: number,
): Promise<{ email: string; role: MemberRole; credentials: MemberCredentials }> {
  requireOwner(signedIn);
  const member = await memberOf(svc, signedIn.teamId, userId);
  const user = await svc.db.query.users.findFirst({ where: eq(users.id, userId), columns: { email: true } });
  if (!user) throw notFound("Member");
  return { email: user.email, role: member.role, credentials: await countMemberCredentials(svc, signedIn.teamId, userId) };
}

/**
 * Owner only. admin and viewer are set directly; "owner" hands the team over (the old owner becomes
 * admin and keeps write). Losing write (admin to viewer) revokes the tokens the member made in the same
 * batch, then their agent grants on the team (D152).
 */
export async function changeRole(svc: Services, signedIn: SignedIn, userId: number, role: MemberRole): Promise<void> {
  requireOwner(signedIn);
  const member = await memberOf(svc, signedIn.teamId, userId);
  if (member.userId === signedIn.user.id) throw new ApiError(409, "conflict", "Hand the team to another member to stop being its owner.");
  const inTeam = (id: number) => and(eq(memberships.teamId, signedIn.teamId), eq(memberships.userId, id));
  const user = await svc.db.query.users.findFirst({ where: eq(users.id, userId), columns: { email: true } });
  if (!user) throw notFound("Member");
  if (role !== "owner") {
    // Recorded only when the role really changes (a repeat, or a member gone meanwhile, records nothing).
    const losesWrite = canWrite(member.role) && !canWrite(role);
    const entry = auditWhen(
      svc,
      signedIn.ctx,
      {
        verb: "member.role_change",
        target: { type: "member", id: user.email },
        summary: `role ${member.role} -> ${role} for ${user.email}${losesWrite ? "; the tokens and agent grants they made for the team revoked" : ""}`,
      },
      { when: sql`EXISTS (SELECT 1 FROM memberships WHERE ${inTeam(userId)} AND role <> ${role})` },
    );
    if (losesWrite) {
      await commit(svc, [entry, svc.db.update(memberships).set({ role }).where(inTeam(userId)), revokeMemberTokens(svc, signedIn.teamId, userId)]);
      await afterCredentialsRevoked(svc, signedIn.teamId, [userId]);
      return;
    }
    await commit(svc, [entry, svc.db.update(memberships).set({ role }).where(inTeam(userId))]);
    return;
  }
  await commit(svc, [
    auditWhen(
      svc,
      signedIn.ctx,
      {
        verb: "team.hand_over",
        target: { type: "member", id: user.email },
        summary: `owner ${signedIn.user.email} -> ${user.email}; ${signedIn.user.email} is now admin`,
      },
      { when: sql`EXISTS (SELECT 1 FROM memberships WHERE ${inTeam(signedIn.user.id)} AND role = 'owner')` },
    ),
    svc.db.update(memberships).set({ role: "admin" }).where(inTeam(signedIn.user.id)),
    svc.db.update(memberships).set({ role: "owner" }).where(inTeam(userId)),
    svc.db.update(teams).set({ ownerEmail: user.email }).where(eq(teams.id, signedIn.teamId)),
  ]);
}

export async function removeMember(svc: Services, signedIn: SignedIn, userId: number): Promise<void> {
  requireOwner(signedIn);
  if (userId === signedIn.user.id) throw new ApiError(409, "conflict", "The owner cannot remove themselves; hand the team over or delete it.");
  const member = await memberOf(svc, signedIn.teamId, userId);
  const user = await svc.db.query.users.findFirst({ where: eq(users.id, userId), columns: { email: true } });
  await leave(svc, signedIn, userId, { verb: "member.remove", email: user?.email ?? `user ${userId}`, role: member.role });
}

export async function leaveTeam(svc: Services, signedIn: SignedIn): Promise<void> {
  if (signedIn.role === "owner") throw new ApiError(409, "conflict", "The owner cannot leave; hand the team to another member first, or delete it.");
  await leave(svc, signedIn, signedIn.user.id, { verb: "member.leave", email: signedIn.user.email, role: signedIn.role });
}

/** A member's place ends with the tokens they made and its audit entry (one batch), then their agent grants on the team (D152). */
async function leave(svc: Services, signedIn: SignedIn, userId: number, who: { verb: string; email: string; role: MemberRole }): Promise<void> {
  const { teamId } = signedIn;
  const place = and(eq(memberships.teamId, teamId), eq(memberships.userId, userId));
  await commit(svc, [
    auditWhen(
      svc,
      signedIn.ctx,
      {
        verb: who.verb,
        target: { type: "member", id: who.email },
        summary: `${who.email} (${who.role}) ${who.verb === "member.leave" ? "left" : "removed"}; the tokens and agent grants they made for the team revoked`,
      },
      { when: sql`EXISTS (SELECT 1 FROM memberships WHERE ${place})` },
    ),
    svc.db.delete(memberships).where(place),
    revokeMemberTokens(svc, teamId, userId),
  ]);
  await afterCredentialsRevoked(svc, teamId, [userId]);
}

/** Owner only: deletes the team and, by cascade, everything it owns (domains, reports, tokens, webhooks). */
export async function deleteTeam(svc: Services, signedIn: SignedIn, confirmName: string): Promise<void> {
  requireOwner(signedIn);
  const team = await svc.db.query.teams.findFirst({ where: eq(teams.id, signedIn.teamId), columns: { name: true } });
  if (!team) throw notFound("Team");
  if (confirmName.trim() !== team.name)
    throw new ApiError(422, "validation_failed", "Type the team's name to confirm.", { confirm: ["Does not match the team name."] });
  await refuseWhileTeamHosts(svc, signedIn.teamId);
  const owned = await svc.db.select({ id: domains.id }).from(domains).where(eq(domains.teamId, signedIn.teamId));
  const memberIds = (await svc.db.select({ userId: memberships.userId }).from(memberships).where(eq(memberships.teamId, signedIn.teamId))).map((m) => m.userId);
  await svc.db.delete(teams).where(eq(teams.id, signedIn.teamId));
  // The tokens went with the cascade: this isolate forgets them at once, others refuse them within the cache bound (D153).
  await afterCredentialsRevoked(svc, signedIn.teamId, memberIds);
  // Each domain's report object and the team's webhook log go after the cascade committed (D124, D140).
  for (const d of owned) await domainStore(svc, d).destroy();
  await teamLog(svc, { id: signedIn.teamId }).destroy();
}

export async function teamOverview(svc: Services, signedIn: SignedIn) {
  const team = await svc.db.query.teams.findFirst({ where: eq(teams.id, signedIn.teamId) });
  if (!team) throw notFound("Team");
  return team;
}
