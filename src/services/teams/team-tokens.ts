// A team's own view of its API tokens (the dashboard): list, create, revoke, always scoped to the
// caller's team. Issuing and revoking go through tokens.ts, the one road for token writes. Does I/O (D1).
import { and, desc, eq } from "drizzle-orm";
import { type TokenScope, tokens, users } from "../../db/schema";
import { ApiError, forbidden, notFound } from "../../lib/errors";
import type { Services } from "../../services";
import { type ServiceContext, requireWrite } from "../context";
import { type IssuedToken, issueToken, revokeToken } from "./tokens";

export interface TokenListItem {
  id: number;
  name: string;
  scope: TokenScope;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Who made it (docs/decisions.md D151): a member's address, "operator" (the admin API), or "unknown" (made before this was recorded). */
  createdBy: string;
}

export async function listTeamTokens(svc: Services, ctx: ServiceContext): Promise<TokenListItem[]> {
  const rows = await svc.db
    .select({
      id: tokens.id,
      name: tokens.name,
      scope: tokens.scope,
      prefix: tokens.prefix,
      createdAt: tokens.createdAt,
      lastUsedAt: tokens.lastUsedAt,
      revokedAt: tokens.revokedAt,
      maker: tokens.createdBy,
      makerEmail: users.email,
    })
    .from(tokens)
    .leftJoin(users, eq(users.id, tokens.createdByUserId))
    .where(eq(tokens.teamId, ctx.teamId))
    .orderBy(desc(tokens.id));
  return rows.map(({ maker, makerEmail, ...t }) => ({ ...t, createdBy: maker === "operator" ? "operator" : (makerEmail ?? "unknown") }));
}

export async function createTeamToken(svc: Services, ctx: ServiceContext, input: { name: string; scope: TokenScope }): Promise<IssuedToken> {
  requireWrite(ctx);
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100)
    throw new ApiError(422, "validation_failed", "Give the token a name of 1 to 100 characters.", { name: ["1 to 100 characters."] });
  // A team's own tokens are made by a member in the dashboard, whom the token names (D151); no other face makes them.
  if (ctx.actor.kind !== "session") throw forbidden("API tokens are made by a member in the dashboard.");
  return issueToken(svc, ctx.teamId, input.scope, name, { memberId: Number(ctx.actor.id) }, ctx);
}

/** Revocation takes effect at once; another team's token id is a 404 and nothing changes. */
export async function revokeTeamToken(svc: Services, ctx: ServiceContext, tokenId: number): Promise<void> {
  requireWrite(ctx);
  const mine = await svc.db.query.tokens.findFirst({ where: and(eq(tokens.id, tokenId), eq(tokens.teamId, ctx.teamId)), columns: { id: true } });
  if (!mine) throw notFound("Token");
  await revokeToken(svc, tokenId, () => ctx);
}
