// OAuth grants of the agent endpoint (docs/decisions.md D44, D45), seen from the dashboard: what a
// signed-in user may grant (a team they belong to; a viewer only read_only), the grant's stored facts,
// and the grants of the current team listed and revoked. The grants live in the OAuth provider's KV,
// reached through its helpers (the `oauth` port); another team's grant is a 404 like any other id.
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { MemberRole, TokenScope } from "../../db/schema";
import { forbidden, notFound } from "../../lib/errors";
import type { Services } from "../../services";
import { listMemberships } from "../accounts/members";
import type { SignedIn } from "../accounts/sessions";

/** What the provider encrypts into every token of a grant and hands back on each /mcp request. */
export interface GrantProps {
  kind: "oauth";
  userId: number;
  teamId: number;
  scope: TokenScope;
}

/** Stored in clear on the grant for listing (never a secret). */
export interface GrantMetadata {
  teamId: number;
  teamName: string;
  scope: TokenScope;
  clientName: string;
  grantedBy: string;
}

export interface AgentGrantView {
  id: string;
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
    props: { kind: "oauth", userId: user.id, teamId: input.teamId, scope: input.scope },
    metadata: { teamId: input.teamId, teamName: membership.teamName, scope: input.scope, clientName: input.clientName, grantedBy: user.email },
  };
}

const PAGE = 1000;

/** The signed-in user's grants on the current team, newest first. */
export async function listAgentGrants(oauth: OAuthHelpers, signedIn: SignedIn): Promise<AgentGrantView[]> {
  const out: AgentGrantView[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(String(signedIn.user.id), { limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const g of page.items) {
      const meta = g.metadata as Partial<GrantMetadata> | null;
      if (meta?.teamId !== signedIn.teamId) continue;
      out.push({
        id: g.id,
        clientName: meta.clientName ?? g.clientId,
        scope: meta.scope === "full" ? "full" : "read_only",
        grantedBy: meta.grantedBy ?? signedIn.user.email,
        createdAt: new Date(g.createdAt * 1000),
        expiresAt: g.expiresAt ? new Date(g.expiresAt * 1000) : null,
      });
    }
    cursor = page.cursor;
  } while (cursor);
  return out.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Revokes one of the user's grants on the current team: its access and refresh tokens stop at once. */
export async function revokeAgentGrant(oauth: OAuthHelpers, signedIn: SignedIn, grantId: string): Promise<void> {
  const grants = await listAgentGrants(oauth, signedIn);
  if (!grants.some((g) => g.id === grantId)) throw notFound("Grant");
  await oauth.revokeGrant(grantId, String(signedIn.user.id));
}
