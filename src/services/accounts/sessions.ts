// Browser sessions (docs/decisions.md D31): the cookie carries 32 random base62 characters; D1 keeps
// only their SHA-256, with an idle expiry (7 days, renewed at most hourly) and an absolute one (30
// days). Sign-out revokes one session, "sign out everywhere" all of a user's. Does I/O (D1).
import { and, count, eq, gt, isNull, sql } from "drizzle-orm";
import { type MemberRole, memberships, sessions, teams, users } from "../../db/schema";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import type { Plan } from "../../lib/plans";
import { HOUR_MS } from "../../lib/time";
import type { Services } from "../../services";
import { requestOrigin } from "../audit/origin";
import { audit, auditWhen } from "../audit-when";
import { commit, commitAll } from "../commit";
import type { CallOrigin, ServiceContext } from "../context";

export const SESSION_IDLE_MS = 7 * 24 * HOUR_MS;
export const SESSION_ABSOLUTE_MS = 30 * 24 * HOUR_MS;
const RENEW_AFTER_MS = HOUR_MS;

/** `__Host-` binds the cookie to this exact origin over https (RFC 6265bis §4.1.3.2); plain http (local development) cannot carry it. */
export const sessionCookieName = (secure: boolean) => (secure ? "__Host-eam_session" : "eam_session");

/** Dashboard roles map onto the API's scopes: owner and admin act as full, viewer as read-only. */
export const scopeOfRole = (role: MemberRole) => (role === "viewer" ? "read_only" : "full");

export interface SignedIn {
  sessionId: string;
  user: { id: number; email: string };
  teamId: number;
  teamName: string;
  /** The current team's plan: its limits meter the dashboard's tools like REST (docs/decisions.md D147). */
  teamPlan: Plan;
  role: MemberRole;
  ctx: ServiceContext;
}

/**
 * Opens a session for a user on one of their teams; returns the cookie value (shown to the browser only).
 * The sign-in is recorded in the team the session lands in, in the same batch (docs/decisions.md D240).
 */
export async function openSession(svc: Services, userId: number, teamId: number | null, origin?: CallOrigin): Promise<string> {
  const { id, statement } = await sessionInsert(svc, userId, teamId);
  if (teamId === null) {
    await statement;
    return id;
  }
  const user = await svc.db.query.users.findFirst({ where: eq(users.id, userId), columns: { email: true } });
  const email = user?.email ?? `user ${userId}`;
  const ctx: ServiceContext = {
    teamId,
    scope: "read_only",
    actor: { kind: "session", id: String(userId) },
    ...(origin ? { origin: { ...origin, label: email } } : {}),
  };
  await commit(svc, [statement, audit(svc, ctx, { verb: "sign_in", target: { type: "user", id: userId }, summary: `method=email_link email=${email}` })]);
  return id;
}

/** A new session as a statement, for a caller that commits it in one batch with what goes with it (an audit entry). */
export async function sessionInsert(svc: Services, userId: number, teamId: number | null) {
  const id = randomBase62(32);
  const now = svc.clock.now();
  const statement = svc.db.insert(sessions).values({
    idHash: await sha256Hex(id),
    userId,
    teamId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
  });
  return { id, statement };
}

function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The session a request carries, resolved to its user, current team and role; null when absent, expired or revoked. */
export async function sessionFromRequest(svc: Services, request: Request): Promise<SignedIn | null> {
  const secure = new URL(request.url).protocol === "https:";
  const raw = cookieValue(request.headers.get("cookie"), sessionCookieName(secure));
  return raw ? resolveSession(svc, raw, request.headers) : null;
}

/** `headers`: the request's, for the audit log's origin of the session's calls (the member's address, face "dashboard"). */
export async function resolveSession(svc: Services, raw: string, headers: Headers = new Headers()): Promise<SignedIn | null> {
  if (!/^[0-9A-Za-z]{32}$/.test(raw)) return null;
  const idHash = await sha256Hex(raw);
  const now = svc.clock.now();
  const [row] = await svc.db
    .select({ userId: sessions.userId, teamId: sessions.teamId, lastSeenAt: sessions.lastSeenAt, email: users.email })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, idHash), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .limit(1);
  if (!row || now.getTime() - row.lastSeenAt.getTime() > SESSION_IDLE_MS) return null;

  // The current team must still be one of the user's; otherwise fall back to the first membership.
  const teamsOfUser = await svc.db
    .select({ teamId: memberships.teamId, role: memberships.role, name: teams.name, plan: teams.plan })
    .from(memberships)
    .innerJoin(teams, eq(teams.id, memberships.teamId))
    .where(eq(memberships.userId, row.userId))
    .orderBy(memberships.teamId);
  const current = teamsOfUser.find((m) => m.teamId === row.teamId) ?? teamsOfUser[0];
  if (!current) return null;

  const touch: Partial<typeof sessions.$inferInsert> = {};
  if (now.getTime() - row.lastSeenAt.getTime() > RENEW_AFTER_MS) touch.lastSeenAt = now;
  if (current.teamId !== row.teamId) touch.teamId = current.teamId;
  if (Object.keys(touch).length > 0) await svc.db.update(sessions).set(touch).where(eq(sessions.idHash, idHash));

  return {
    sessionId: idHash,
    user: { id: row.userId, email: row.email },
    teamId: current.teamId,
    teamName: current.name,
    teamPlan: current.plan,
    role: current.role,
    ctx: {
      teamId: current.teamId,
      scope: scopeOfRole(current.role),
      actor: { kind: "session", id: String(row.userId) },
      origin: requestOrigin(headers, "dashboard", row.email),
    },
  };
}

/**
 * Ends one session. `reason` names a sign-out in the audit log (recorded in the session's current team, only
 * when the session was still live); without it (a session replaced by a new sign-in) nothing is recorded.
 */
export async function revokeSession(svc: Services, signedIn: SignedIn, reason?: "sign_out"): Promise<void> {
  const live = and(eq(sessions.idHash, signedIn.sessionId), isNull(sessions.revokedAt));
  const end = svc.db.update(sessions).set({ revokedAt: svc.clock.now() }).where(eq(sessions.idHash, signedIn.sessionId));
  if (!reason) {
    await end;
    return;
  }
  await commit(svc, [
    auditWhen(
      svc,
      signedIn.ctx,
      { verb: "sign_out", target: { type: "user", id: signedIn.user.id }, summary: `${signedIn.user.email} signed out` },
      { when: sql`EXISTS (SELECT 1 FROM sessions WHERE ${live})` },
    ),
    end,
  ]);
}

/**
 * Ends every session of the user. Recorded in each team of the user (their sessions may act in any of
 * them, D240), with how many sessions ended.
 */
export async function revokeAllSessions(svc: Services, signedIn: SignedIn): Promise<void> {
  const userId = signedIn.user.id;
  const live = and(eq(sessions.userId, userId), isNull(sessions.revokedAt));
  const [open] = await svc.db.select({ n: count() }).from(sessions).where(live);
  const teamsOfUser = await svc.db.select({ teamId: memberships.teamId }).from(memberships).where(eq(memberships.userId, userId));
  const entries = teamsOfUser.map((m) =>
    audit(
      svc,
      { ...signedIn.ctx, teamId: m.teamId },
      {
        verb: "sign_out_everywhere",
        target: { type: "user", id: userId },
        summary: `${signedIn.user.email} signed out everywhere: ${open?.n ?? 0} session${open?.n === 1 ? "" : "s"} ended`,
      },
    ),
  );
  await commitAll(svc, [svc.db.update(sessions).set({ revokedAt: svc.clock.now() }).where(live), ...entries]);
}

/** Switches the session's current team; 404 unless the user is a member (another team's id reveals nothing). */
export async function switchTeam(svc: Services, signedIn: SignedIn, teamId: number): Promise<boolean> {
  const member = await svc.db.query.memberships.findFirst({ where: and(eq(memberships.userId, signedIn.user.id), eq(memberships.teamId, teamId)) });
  if (!member) return false;
  await svc.db.update(sessions).set({ teamId }).where(eq(sessions.idHash, signedIn.sessionId));
  return true;
}
