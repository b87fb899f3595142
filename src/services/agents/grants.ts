// OAuth grants of the agent endpoint (docs/decisions.md D44, D45), seen from the dashboard: what a
// signed-in user may grant (a team they belong to; a viewer only read_only), the grant's stored facts,
// and the grants of the current team listed and revoked (an owner or admin: every member's, D154). The
// grants live in the OAuth provider's KV, reached through its helpers (the `oauth` port); another team's
// grant is a 404 like any other id.
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { MemberRole, TokenScope } from "../../db/schema";
import { forbidden, notFound } from "../../lib/errors";
import type { Services } from "../../services";
import { listMembers, listMemberships } from "../accounts/members";
import { audit } from "../audit-when";
import { commit } from "../commit";
import type { SignedIn } from "../accounts/sessions";
import { type GrantMetadata, grantsOnTeam, type StoredGrant } from "../credentials/grant-store";

export type { GrantMetadata };

/** What the provider encrypts into every token of a grant and hands back on each /mcp request. */
export interface GrantProps {
  kind: "oauth";
  userId: number;
  teamId: number;
  scope: TokenScope;
  /** For the audit log's actor label (src/mcp/caller.ts); absent in grants made before it. */
  clientName?: string;
  grantedBy?: string;
}

export interface AgentGrantView {
  id: string;
  /** The member who made the grant. */
  userId: number;
  clientName: string;
  scope: TokenScope;
  grantedBy: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export const mayGrant = (role: MemberRole, scope: TokenScope) => scope === "read_only" || role !== "viewer";

/** Checks a consent decision: the team must be one of the user's, and a viewer may only grant read_only. */
export async function grantFor(
  svc: Services,
  user: SignedIn["user"],
  input: { teamId: number; scope: TokenScope; clientName: string },
): Promise<{ props: GrantProps; metadata: GrantMetadata }> {
  const membership = (await listMemberships(svc, user.id)).find((m) => m.teamId === input.teamId);
  if (!membership) throw notFound("Team");
  if (!mayGrant(membership.role, input.scope)) throw forbidden("A viewer may only grant read-only access.");
  return {
    props: { kind: "oauth", userId: user.id, teamId: input.teamId, scope: input.scope, clientName: input.clientName.slice(0, 100), grantedBy: user.email },
    metadata: { teamId: input.teamId, teamName: membership.teamName, scope: input.scope, clientName: input.clientName, grantedBy: user.email },
  };
}

/** Owners and admins see and revoke every member's grants on the team; a viewer only their own (D154). */
const seesEveryGrant = (signedIn: SignedIn) => signedIn.role !== "viewer";

/** Every member's grants on the current team (the team's members read from D1, each one's grants from KV). */
async function teamGrants(svc: Services, oauth: OAuthHelpers, signedIn: SignedIn): Promise<AgentGrantView[]> {
  const members = await listMembers(svc, signedIn);
  const perMember = await Promise.all(members.map((m) => grantsOnTeam(oauth, m.userId, signedIn.teamId).then((gs) => gs.map((g) => viewOf(g, m.email)))));
  return perMember.flat().sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

const viewOf = (g: StoredGrant, memberEmail: string): AgentGrantView => ({
  id: g.id,
  userId: g.userId,
  clientName: g.metadata.clientName ?? g.clientId,
  scope: g.metadata.scope === "full" ? "full" : "read_only",
  grantedBy: g.metadata.grantedBy ?? memberEmail,
  createdAt: g.createdAt,
  expiresAt: g.expiresAt,
});

/** The grants on the current team the signed-in member may see: every member's for an owner or admin, else their own; newest first. */
export async function listAgentGrants(svc: Services, oauth: OAuthHelpers, signedIn: SignedIn): Promise<AgentGrantView[]> {
  const all = await teamGrants(svc, oauth, signedIn);
  return seesEveryGrant(signedIn) ? all : all.filter((g) => g.userId === signedIn.user.id);
}

/**
 * Revokes a grant on the current team: its access and refresh tokens stop at once. A member's own grant,
 * or (owner and admin) any member's; a viewer revoking another member's grant is a 403, and a grant
 * that is not this team's is a 404.
 */
export async function revokeAgentGrant(svc: Services, oauth: OAuthHelpers, signedIn: SignedIn, grantId: string): Promise<void> {
  const grant = (await teamGrants(svc, oauth, signedIn)).find((g) => g.id === grantId);
  if (!grant) throw notFound("Grant");
  if (grant.userId !== signedIn.user.id && !seesEveryGrant(signedIn)) throw forbidden("Only the owner and admins revoke another member's agent access.");
  await oauth.revokeGrant(grantId, String(grant.userId));
  // The grant lives in the provider's KV, not D1: the entry follows the revocation (docs/decisions.md D239).
  await commit(svc, [
    audit(svc, signedIn.ctx, {
      verb: "agent_grant.revoke",
      target: { type: "agent_grant", id: grantId },
      summary: `${grant.scope} access of agent "${grant.clientName}" given by ${grant.grantedBy} revoked`,
    }),
  ]);
}

/**
 * Records a grant the signed-in member just gave on the consent page, in the team it is for (which may
 * not be the session's current team). The grant lives in the provider's KV: the entry follows it (D239).
 */
export async function recordAgentGrant(svc: Services, signedIn: SignedIn, metadata: GrantMetadata, clientId: string): Promise<void> {
  await commit(svc, [
    audit(
      svc,
      { ...signedIn.ctx, teamId: metadata.teamId },
      {
        verb: "agent_grant.create",
        target: { type: "agent_client", id: clientId },
        summary: `${metadata.scope} access given to agent "${metadata.clientName}" by ${metadata.grantedBy}`,
      },
    ),
  ]);
}
