// Team API tokens: random, shown once, stored only as SHA-256; verified ones cached per isolate (docs/decisions.md D51). Does I/O (D1).
import { and, eq, isNull, sql } from "drizzle-orm";
import { notFound } from "../../lib/errors";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { type Plan, type TokenScope, teams, tokens } from "../../db/schema";
import type { Services } from "../../services";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import type { ServiceContext } from "../context";

export const TOKEN_PREFIX = "eam_";
const TOKEN_PATTERN = /^eam_[0-9A-Za-z]{40}$/;

export const isWellFormedToken = (value: string) => TOKEN_PATTERN.test(value);

export interface IssuedToken {
  id: number;
  token: string;
  prefix: string;
  scope: TokenScope;
  name: string;
  created_at: string;
}

/** Who makes a token (docs/decisions.md D151): a member in the dashboard, or the operator through the admin API. */
export type TokenMaker = { memberId: number } | "operator";

/**
 * `by` is who the audit log names (docs/audit.md "Verbs"): the member's context, or the operator's for the
 * team (operatorContext of src/services/audit/origin.ts). The token and its entry are one batch.
 */
export async function issueToken(svc: Services, teamId: number, scope: TokenScope, name: string, maker: TokenMaker, by: ServiceContext): Promise<IssuedToken> {
  const team = await svc.db.query.teams.findFirst({ where: eq(teams.id, teamId), columns: { id: true } });
  if (!team) throw notFound("Team");
  const token = `${TOKEN_PREFIX}${randomBase62(40)}`;
  const prefix = token.slice(0, 12);
  const now = svc.clock.now();
  const [[row]] = await commit(svc, [
    svc.db
      .insert(tokens)
      .values({
        teamId,
        scope,
        name,
        tokenHash: await sha256Hex(token),
        prefix,
        createdAt: now,
        createdBy: maker === "operator" ? "operator" : "member",
        createdByUserId: maker === "operator" ? null : maker.memberId,
      })
      .returning({ id: tokens.id }),
    auditWhen(
      svc,
      { ...by, teamId },
      { verb: "token.create", target: { type: "token", id: 0 }, summary: `token "${name}" (${prefix}…), ${scope}` },
      { targetId: sql`last_insert_rowid()` },
    ),
  ]);
  if (!row) throw new Error("token insert returned no row");
  return { id: row.id, token, prefix, scope, name, created_at: now.toISOString() };
}

/**
 * Revokes a token (idempotent: an already revoked one changes nothing and records nothing). `by` names the
 * actor for the audit log from the token's team: the member's context, or the operator's.
 */
export async function revokeToken(svc: Services, tokenId: number, by: (teamId: number) => ServiceContext): Promise<void> {
  const found = await svc.db.query.tokens.findFirst({
    where: eq(tokens.id, tokenId),
    columns: { id: true, teamId: true, name: true, prefix: true, scope: true },
  });
  if (!found) {
    forgetVerifiedTokens({ tokenId });
    throw notFound("Token");
  }
  const live = and(eq(tokens.id, tokenId), isNull(tokens.revokedAt));
  await commit(svc, [
    auditWhen(
      svc,
      { ...by(found.teamId), teamId: found.teamId },
      { verb: "token.revoke", target: { type: "token", id: tokenId }, summary: `token "${found.name}" (${found.prefix}…), ${found.scope}, revoked` },
      { when: sql`EXISTS (SELECT 1 FROM tokens WHERE ${live})` },
    ),
    svc.db.update(tokens).set({ revokedAt: svc.clock.now() }).where(live),
  ]);
  forgetVerifiedTokens({ tokenId });
}

export interface AuthenticatedToken {
  token: { id: number; name: string; scope: TokenScope; prefix: string; lastUsedAt: Date | null };
  team: { id: number; name: string; plan: Plan; ownerEmail: string };
}

/**
 * docs/decisions.md D51: a verified token is remembered by the isolate for at most this long, so the
 * hot path of an authenticated request is one Durable Object call and no D1 read. Revoking a token
 * or changing a plan forgets it at once in the isolate that did it; other isolates notice within this bound.
 */
export const TOKEN_CACHE_TTL_MS = 30_000;
const TOKEN_CACHE_MAX = 2_000;
const verified = new Map<string, { value: AuthenticatedToken; until: number }>();
/** When this isolate last wrote last_used_at per token id, so the cached row's value is not reused forever. */
const touched = new Map<number, number>();

/** Forgets the cached verification of one token (revocation) or of every token of a team (plan change). */
export function forgetVerifiedTokens(match: { tokenId?: number; teamId?: number }): void {
  for (const [key, entry] of verified) {
    if (entry.value.token.id === match.tokenId || entry.value.team.id === match.teamId) verified.delete(key);
  }
}

/** Looks a presented bearer value up by its hash; null for unknown or revoked tokens (cached, D51). */
export async function authenticateToken(svc: Services, presented: string): Promise<AuthenticatedToken | null> {
  if (!isWellFormedToken(presented)) return null;
  const hash = await sha256Hex(presented);
  const now = svc.clock.now().getTime();
  const hit = verified.get(hash);
  if (hit && hit.until > now) return hit.value;
  if (hit) verified.delete(hash);
  const found = await lookupToken(svc, hash);
  // Only positive answers are kept: an unknown token always costs a lookup and counts as a failure.
  if (found) {
    if (verified.size >= TOKEN_CACHE_MAX) verified.delete(verified.keys().next().value as string);
    verified.set(hash, { value: found, until: now + TOKEN_CACHE_TTL_MS });
  }
  return found;
}

async function lookupToken(svc: Services, hash: string): Promise<AuthenticatedToken | null> {
  const rows = await svc.db
    .select({
      id: tokens.id,
      name: tokens.name,
      scope: tokens.scope,
      prefix: tokens.prefix,
      lastUsedAt: tokens.lastUsedAt,
      teamId: teams.id,
      teamName: teams.name,
      plan: teams.plan,
      ownerEmail: teams.ownerEmail,
    })
    .from(tokens)
    .innerJoin(teams, eq(teams.id, tokens.teamId))
    .where(and(eq(tokens.tokenHash, hash), isNull(tokens.revokedAt)))
    .limit(1);
  const r = rows[0];
  if (!r) return null;
  return {
    token: { id: r.id, name: r.name, scope: r.scope, prefix: r.prefix, lastUsedAt: r.lastUsedAt },
    team: { id: r.teamId, name: r.teamName, plan: r.plan, ownerEmail: r.ownerEmail },
  };
}

/** last_used_at is advisory: written at most once a minute per token, off the response path. */
export async function touchToken(svc: Services, tokenId: number, lastUsedAt: Date | null): Promise<void> {
  const now = svc.clock.now();
  const last = Math.max(lastUsedAt?.getTime() ?? 0, touched.get(tokenId) ?? 0);
  if (last > 0 && now.getTime() - last < 60_000) return;
  if (touched.size >= TOKEN_CACHE_MAX) touched.clear();
  touched.set(tokenId, now.getTime());
  await svc.db.update(tokens).set({ lastUsedAt: now }).where(eq(tokens.id, tokenId));
}
