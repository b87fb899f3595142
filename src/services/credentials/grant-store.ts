// The OAuth grants of the agent endpoint as stored by the OAuth provider in KV (docs/decisions.md D44,
// D45): listed per user and team, and revoked (a grant with its access and refresh tokens). Pages on the
// agent paths have the provider's own helpers; other callers (the team page removing a member, deleting
// a team: D152, D153) build them here. Does I/O (KV).
import { getOAuthApi, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { TokenScope } from "../../db/schema";
import type { Env } from "../../env";
import type { Services } from "../../services";

/** Stored in clear on the grant for listing (never a secret). */
export interface GrantMetadata {
  teamId: number;
  teamName: string;
  scope: TokenScope;
  clientName: string;
  grantedBy: string;
}

export interface StoredGrant {
  id: string;
  userId: number;
  clientId: string;
  metadata: Partial<GrantMetadata>;
  createdAt: Date;
  expiresAt: Date | null;
}

const unused = { fetch: () => new Response(null, { status: 404 }) };

/**
 * The provider's helpers outside a request of the agent paths. Only the grant helpers are called
 * (`listUserGrants`, `revokeGrant`), which read and delete the grant's KV records; the constructor
 * insists on routes and a resource, which these helpers never read.
 */
export function grantStore(svc: Services): OAuthHelpers {
  return getOAuthApi<Env>(
    {
      apiRoute: "/mcp",
      apiHandler: unused,
      defaultHandler: unused,
      authorizeEndpoint: "/oauth/authorize",
      tokenEndpoint: "/oauth/token",
      resourceMetadata: { resource: "https://grants.invalid/mcp" },
    },
    svc.env,
  );
}

const PAGE = 1000;

/** One user's grants on one team (the grant's metadata names its team), in the provider's order. */
export async function grantsOnTeam(oauth: OAuthHelpers, userId: number, teamId: number): Promise<StoredGrant[]> {
  const out: StoredGrant[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(String(userId), { limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const g of page.items) {
      const meta = (g.metadata ?? {}) as Partial<GrantMetadata>;
      if (meta.teamId !== teamId) continue;
      out.push({
        id: g.id,
        userId,
        clientId: g.clientId,
        metadata: meta,
        createdAt: new Date(g.createdAt * 1000),
        expiresAt: g.expiresAt ? new Date(g.expiresAt * 1000) : null,
      });
    }
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** Revokes every grant a user made for a team: their access and refresh tokens stop at once. Returns how many. */
export async function revokeGrantsOnTeam(oauth: OAuthHelpers, userId: number, teamId: number): Promise<number> {
  const grants = await grantsOnTeam(oauth, userId, teamId);
  for (const g of grants) await oauth.revokeGrant(g.id, String(userId));
  return grants.length;
}
