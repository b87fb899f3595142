// Team API tokens: random, shown once, stored only as SHA-256. Does I/O (D1).
import { and, eq, isNull } from "drizzle-orm";
import { notFound } from "../../lib/errors";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { type Plan, type TokenScope, teams, tokens } from "../../db/schema";
import type { Services } from "../../services";

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

export async function issueToken(svc: Services, teamId: number, scope: TokenScope, name: string): Promise<IssuedToken> {
  const team = await svc.db.query.teams.findFirst({ where: eq(teams.id, teamId), columns: { id: true } });
  if (!team) throw notFound("Team");
  const token = `${TOKEN_PREFIX}${randomBase62(40)}`;
  const prefix = token.slice(0, 12);
  const now = svc.clock.now();
  const [row] = await svc.db
    .insert(tokens)
    .values({ teamId, scope, name, tokenHash: await sha256Hex(token), prefix, createdAt: now })
    .returning({ id: tokens.id });
  if (!row) throw new Error("token insert returned no row");
  return { id: row.id, token, prefix, scope, name, created_at: now.toISOString() };
}

export async function revokeToken(svc: Services, tokenId: number): Promise<void> {
  const rows = await svc.db
    .update(tokens)
    .set({ revokedAt: svc.clock.now() })
    .where(and(eq(tokens.id, tokenId), isNull(tokens.revokedAt)))
    .returning({ id: tokens.id });
  if (rows.length === 0) {
    const exists = await svc.db.query.tokens.findFirst({ where: eq(tokens.id, tokenId), columns: { id: true } });
    if (!exists) throw notFound("Token");
  }
}

export interface AuthenticatedToken {
  token: { id: number; name: string; scope: TokenScope; prefix: string; lastUsedAt: Date | null };
  team: { id: number; name: string; plan: Plan; ownerEmail: string };
}

/** Looks a presented bearer value up by its hash; null for unknown or revoked tokens. */
export async function authenticateToken(svc: Services, presented: string): Promise<AuthenticatedToken | null> {
  if (!isWellFormedToken(presented)) return null;
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
    .where(and(eq(tokens.tokenHash, await sha256Hex(presented)), isNull(tokens.revokedAt)))
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
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < 60_000) return;
  await svc.db.update(tokens).set({ lastUsedAt: now }).where(eq(tokens.id, tokenId));
}
