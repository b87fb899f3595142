// The credentials a member made for a team, which must not outlive their place in it (docs/decisions.md
// D152): the API tokens they made in the dashboard (D1) and the agent grants they gave (KV). When a
// member leaves, is removed or loses write (admin to viewer), the token revocation is one more
// statement of the membership change's D1 batch; the grants follow right after the commit. Does I/O (D1, KV).
import { and, count, eq, isNull } from "drizzle-orm";
import { tokens } from "../../db/schema";
import type { Services } from "../../services";
import type { Statement } from "../commit";
import { forgetVerifiedTokens } from "../teams/tokens";
import { grantStore, grantsOnTeam, revokeGrantsOnTeam } from "./grant-store";

export interface MemberCredentials {
  tokens: number;
  grants: number;
}

const madeBy = (teamId: number, userId: number) => and(eq(tokens.teamId, teamId), eq(tokens.createdByUserId, userId), isNull(tokens.revokedAt));

/** How many live tokens and agent grants a member made for a team (what leaving or a demotion revokes). */
export async function countMemberCredentials(svc: Services, teamId: number, userId: number): Promise<MemberCredentials> {
  const [row] = await svc.db.select({ n: count() }).from(tokens).where(madeBy(teamId, userId));
  const grants = await grantsOnTeam(grantStore(svc), userId, teamId);
  return { tokens: row?.n ?? 0, grants: grants.length };
}

/** The statement that revokes the member's live tokens on the team, for the membership change's own batch. */
export const revokeMemberTokens = (svc: Services, teamId: number, userId: number): Statement =>
  svc.db.update(tokens).set({ revokedAt: svc.clock.now() }).where(madeBy(teamId, userId));

/**
 * After the batch committed: this isolate forgets the team's verified tokens at once (other isolates
 * within TOKEN_CACHE_TTL_MS, D51), and the members' grants on the team are revoked in KV. A grant whose
 * revocation fails is logged, not retried: every /mcp request reads the membership again (D44), so a
 * removed member's grant is refused anyway and a viewer's acts read-only.
 */
export async function afterCredentialsRevoked(svc: Services, teamId: number, userIds: readonly number[]): Promise<void> {
  forgetVerifiedTokens({ teamId });
  const oauth = grantStore(svc);
  for (const userId of userIds) {
    try {
      await revokeGrantsOnTeam(oauth, userId, teamId);
    } catch (error) {
      console.error(JSON.stringify({ level: "error", msg: "agent grant revocation failed", teamId, userId, error: String(error) }));
    }
  }
}
