// Refresh-token reuse detection in front of the provider's token endpoint (docs/decisions.md D155).
// The provider rotates the refresh token on every use and, for a client whose answer was lost, still
// accepts the token it just replaced (its "previous" token) until the new one is used. Alone, that lets
// a stolen, already rotated token be replayed: each replay mints a new token and locks the legitimate
// client out. OAuth 2.1 §4.3.1 and RFC 9700 §4.14.2 ask the server to notice a rotated token coming
// back and revoke the whole grant. Every token this endpoint rotates out is remembered (by its
// SHA-256, as the provider stores tokens) for as long as a grant may stay idle; when one comes back,
// except as the previous token within the retry grace, the grant and all its tokens are revoked.
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import { readBodyCapped } from "../lib/body";
import { sha256Hex } from "../lib/crypto";
import { oauthError } from "./oauth-error";

/** How long the token just replaced may still be presented, for a client retrying after a lost answer. */
export const REFRESH_RETRY_GRACE_SECONDS = 60;
/** A token request is a short form; anything longer is left to the provider, which refuses it. */
const TOKEN_FORM_MAX_BYTES = 16 * 1024;

interface RetiredToken {
  userId: string;
  grantId: string;
  /** When it was rotated out (seconds since the epoch): the retry grace runs from here. */
  at: number;
}

/** The fields of the provider's grant record this guard reads (its stored shape, `grant:<user>:<grant>`). */
interface StoredGrant {
  refreshTokenId?: string;
  previousRefreshTokenId?: string;
}

const retiredKey = (hash: string) => `refresh-retired:${hash}`;

async function refreshTokenOf(request: Request): Promise<string | null> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return null;
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(new TextDecoder().decode(await readBodyCapped(request.clone(), TOKEN_FORM_MAX_BYTES)));
  } catch {
    return null;
  }
  return form.get("grant_type") === "refresh_token" ? form.get("refresh_token") : null;
}

export interface RefreshGuardDeps {
  env: Env;
  /** The provider's helpers for this origin (revokeGrant deletes the grant and every token of it). */
  helpers: () => OAuthHelpers;
  /** Seconds a rotated-out token is remembered: the grant's idle lifetime, after which the grant is gone anyway. */
  rememberSeconds: number;
  pass: (request: Request) => Promise<Response>;
}

/** POST to the token endpoint: passes the request on, unless it replays a rotated refresh token. */
export async function guardRefresh(request: Request, deps: RefreshGuardDeps): Promise<Response> {
  const token = await refreshTokenOf(request);
  const parts = token?.split(":") ?? [];
  if (!token || parts.length !== 3) return deps.pass(request);
  const [userId = "", grantId = ""] = parts;
  const kv = deps.env.OAUTH_KV;
  const grant = await kv.get<StoredGrant>(`grant:${userId}:${grantId}`, "json");
  if (!grant) return deps.pass(request);
  const hash = await sha256Hex(token);
  const now = Math.floor(Date.now() / 1000);
  const remember = (tokenHash: string, at: number) =>
    kv.put(retiredKey(tokenHash), JSON.stringify({ userId, grantId, at } satisfies RetiredToken), { expirationTtl: deps.rememberSeconds });

  if (hash === grant.refreshTokenId) {
    // Remembered before the rotation, so a replay racing this request already finds it.
    await remember(hash, now);
    return deps.pass(request);
  }
  const retired = await kv.get<RetiredToken>(retiredKey(hash), "json");
  const ofThisGrant = retired !== null && retired.userId === userId && retired.grantId === grantId;
  if (hash === grant.previousRefreshTokenId && ofThisGrant && now - retired.at <= REFRESH_RETRY_GRACE_SECONDS) {
    // A retry: the token minted by the lost answer is never delivered again; if it shows up later,
    // someone else had it, so it is remembered as rotated out (at its original time, no grace).
    const response = await deps.pass(request);
    if (response.ok && grant.refreshTokenId) await remember(grant.refreshTokenId, 0);
    return response;
  }
  if (!ofThisGrant) return deps.pass(request); // never issued for this grant: the provider refuses it (invalid_grant)
  await deps.helpers().revokeGrant(grantId, userId);
  console.warn(JSON.stringify({ level: "warn", face: "oauth", event: "refresh_token_reused", userId, grantId }));
  return oauthError(400, "invalid_grant", "This refresh token was already used; the grant is revoked. Authorize again.");
}
