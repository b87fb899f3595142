// Sign-in through a team's OpenID provider (OpenID Connect Core §3.1, authorization code flow with PKCE,
// RFC 7636, and a nonce): the start stores a single-use sign-in (state as SHA-256, nonce, verifier, and
// the hash of a value only the starting browser holds) and sends the browser to the provider; the
// callback consumes it, redeems the code, checks the ID token in full and opens a session exactly like
// the email link does (docs/sso.md). Any refusal is a 4xx and writes no session. Does I/O (D1, HTTPS).
import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { ProviderEndpoints } from "../../core/sso/discovery";
import { s256Challenge } from "../../core/sso/pkce";
import { verifyIdToken } from "../../core/sso/id-token";
import { memberships, ssoLogins, teamSso, teams, users } from "../../db/schema";
import { randomBase62, sha256Hex, timingSafeEqual } from "../../lib/crypto";
import { ApiError, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { normalizeEmail, safeNext } from "../accounts/links";
import { findOrCreateUser } from "../accounts/members";
import { scopeOfRole, sessionInsert } from "../accounts/sessions";
import { audit } from "../audit-when";
import { commit, type Statement } from "../commit";
import type { CallOrigin, ServiceContext } from "../context";
import { providerKeys, redeemCode, signInRefused } from "./provider";
import { openClientSecret } from "./secret";
import { endpointsOf, verifiedSsoDomains } from "./settings";

/** A sign-in must come back within 10 minutes (the provider's own login included). */
export const SSO_LOGIN_TTL_MS = 10 * 60_000;
/** Sign-ins started a minute, per client address (docs/limits.md): each writes a row. */
export const SSO_STARTS_PER_CLIENT_PER_MINUTE = 20;

const issuerHostOf = (issuer: string) => {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
};

export interface StartedSignIn {
  /** The provider's authorization endpoint with the request's parameters. */
  location: string;
  /** Goes into the browser's sign-in cookie; its hash is stored with the sign-in. */
  browserValue: string;
}

/** Finds the team whose verified covered domain holds the address and starts a sign-in at its provider. */
export async function startSsoSignIn(
  svc: Services,
  input: { email: string; next?: string | null; redirectUri: string; client: string },
): Promise<StartedSignIn> {
  const email = normalizeEmail(input.email);
  if (!email) throw validationFailed({ email: ["Enter a valid email address."] }, "Enter a valid email address.");
  const limited = await svc.rateLimiter.failure(`sso-start:${input.client}`, SSO_STARTS_PER_CLIENT_PER_MINUTE);
  if (limited.blocked) {
    throw new ApiError(429, "rate_limited", `Too many sign-ins started; try again in ${limited.retryAfterSeconds} seconds.`, undefined, {
      "Retry-After": String(limited.retryAfterSeconds),
    });
  }
  const domain = email.slice(email.lastIndexOf("@") + 1);
  const [team] = await svc.db.all<{ team_id: number; issuer: string; client_id: string; discovery: string; has_secret: number }>(sql`
    SELECT s.team_id AS team_id, s.issuer AS issuer, s.client_id AS client_id, s.discovery AS discovery,
      s.client_secret_enc IS NOT NULL AS has_secret
    FROM sso_domains d JOIN team_sso s ON s.team_id = d.team_id
    WHERE d.domain = ${domain} AND d.verified_at IS NOT NULL
    LIMIT 1`);
  if (!team) throw new ApiError(404, "not_found", `Single sign-on is not set up for ${domain}. Sign in with an email link instead.`);
  if (!team.has_secret) throw new ApiError(503, "dependency_unavailable", "Single sign-on for this domain is not fully configured yet: ask the team owner.");

  const endpoints = endpointsOf(team);
  const state = randomBase62(43);
  const nonce = randomBase62(43);
  const codeVerifier = randomBase62(64);
  const browserValue = randomBase62(43);
  const now = svc.clock.now();
  await commit(svc, [
    // Spent and expired sign-ins have no further use: each start clears them (the expiry index keeps it cheap).
    svc.db.delete(ssoLogins).where(lt(ssoLogins.expiresAt, now)),
    svc.db.insert(ssoLogins).values({
      stateHash: await sha256Hex(state),
      teamId: team.team_id,
      nonce,
      codeVerifier,
      browserHash: await sha256Hex(browserValue),
      next: safeNext(input.next),
      createdAt: now,
      expiresAt: new Date(now.getTime() + SSO_LOGIN_TTL_MS),
    }),
  ]);
  const url = new URL(endpoints.authorization_endpoint);
  const params: Record<string, string> = {
    response_type: "code",
    scope: "openid email profile",
    client_id: team.client_id,
    redirect_uri: input.redirectUri,
    state,
    nonce,
    code_challenge: await s256Challenge(codeVerifier),
    code_challenge_method: "S256",
    // A hint only (Core §3.1.2.1): the ID token's own address is what counts.
    login_hint: email,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { location: url.href, browserValue };
}

export interface CompletedSignIn {
  sessionId: string;
  userId: number;
  teamId: number;
  next: string | null;
}

/** Consumes the sign-in named by `state` in the statement that reads it: a second use finds nothing. */
async function consumeSignIn(svc: Services, state: string) {
  if (!/^[0-9A-Za-z]{43}$/.test(state)) return null;
  const now = svc.clock.now();
  const [row] = await svc.db
    .update(ssoLogins)
    .set({ usedAt: now })
    .where(and(eq(ssoLogins.stateHash, await sha256Hex(state)), isNull(ssoLogins.usedAt), gt(ssoLogins.expiresAt, now)))
    .returning();
  return row ?? null;
}

const START_AGAIN = "Start again from the sign-in page.";

/**
 * The authorization response's `iss` (RFC 9207 §2.4): when present it must be this sign-in's issuer, and
 * it must be present when the provider said it sends one. Every team's provider returns to the same
 * /sso/callback, so without this a code another provider issued could be delivered to a sign-in started
 * for a provider an attacker runs, and sent to that attacker's token endpoint (the mix-up attack, RFC 9700
 * §4.4; docs/decisions.md D268). Checked before the code is sent anywhere.
 */
function checkResponseIssuer(iss: string | null, issuer: string, endpoints: ProviderEndpoints): void {
  if (iss === null ? endpoints.iss_parameter === true : iss !== issuer) {
    const why = iss === null ? "its provider sends an issuer (iss) with every answer, and this one has no iss" : "it came back from another issuer (iss)";
    throw signInRefused(400, `This sign-in was refused: ${why}. ${START_AGAIN}`);
  }
}

export async function completeSsoSignIn(
  svc: Services,
  input: { state: string; code: string; iss: string | null; browserValue: string | null; redirectUri: string; origin: CallOrigin },
): Promise<CompletedSignIn> {
  const login = await consumeSignIn(svc, input.state);
  if (!login) throw signInRefused(400, `This sign-in was already used, has expired, or was never started here. ${START_AGAIN}`);
  // The callback must reach the browser that started (a login CSRF sends someone else's code to a victim).
  if (!input.browserValue || !timingSafeEqual(await sha256Hex(input.browserValue), login.browserHash)) {
    throw signInRefused(400, `This sign-in was started in another browser, or this browser's sign-in cookie is missing. ${START_AGAIN}`);
  }
  if (input.code === "" || input.code.length > 2048) throw signInRefused(400, `The provider sent no authorization code. ${START_AGAIN}`);
  const config = await svc.db.query.teamSso.findFirst({ where: eq(teamSso.teamId, login.teamId) });
  if (!config?.clientSecretEnc) throw signInRefused(400, `Single sign-on is no longer configured for this team. ${START_AGAIN}`);
  const endpoints = endpointsOf(config);
  checkResponseIssuer(input.iss, config.issuer, endpoints);
  const secret = await openClientSecret(svc, config.clientSecretEnc, login.teamId);
  if (secret === null) throw new ApiError(503, "dependency_unavailable", "The team's client secret cannot be opened: the team owner must save it again.");

  const idToken = await redeemCode(svc, endpoints, {
    code: input.code,
    redirectUri: input.redirectUri,
    codeVerifier: login.codeVerifier,
    clientId: config.clientId,
    clientSecret: secret,
  });
  const identity = await verifyIdToken(idToken, providerKeys(svc, endpoints), {
    issuer: config.issuer,
    clientId: config.clientId,
    nonce: login.nonce,
    domains: await verifiedSsoDomains(svc, login.teamId),
    now: svc.clock.now(),
  });
  if (!identity.ok) throw signInRefused(403, `Sign-in refused: ${identity.error}.`);
  const email = identity.value.email;

  const team = await svc.db.query.teams.findFirst({ where: eq(teams.id, login.teamId), columns: { name: true } });
  const user = await svc.db.query.users.findFirst({ where: eq(users.email, email), columns: { id: true } });
  const member = user
    ? await svc.db.query.memberships.findFirst({ where: and(eq(memberships.teamId, login.teamId), eq(memberships.userId, user.id)) })
    : undefined;
  if (!member && !config.autoJoin) {
    throw signInRefused(403, `${email} is not a member of ${team?.name ?? "this team"}. Ask the team owner to invite you.`);
  }

  const now = svc.clock.now();
  const userId = user?.id ?? (await findOrCreateUser(svc, email));
  const role = member?.role ?? "viewer";
  const ctx: ServiceContext = {
    teamId: login.teamId,
    scope: scopeOfRole(role),
    actor: { kind: "session", id: String(userId) },
    origin: { ...input.origin, label: email },
  };
  const session = await sessionInsert(svc, userId, login.teamId);
  const statements: Statement[] = [];
  // Auto-join (D249): a new person from a covered domain joins as a viewer; an existing role is never changed.
  if (!member) statements.push(svc.db.insert(memberships).values({ teamId: login.teamId, userId, role: "viewer", createdAt: now }).onConflictDoNothing());
  await commit(svc, [
    session.statement,
    svc.db.update(users).set({ lastSignInAt: now }).where(eq(users.id, userId)),
    ...statements,
    audit(svc, ctx, {
      verb: "sign_in",
      target: { type: "user", id: userId },
      summary: `method=sso issuer=${issuerHostOf(config.issuer)} email=${email}${member ? "" : " joined_as=viewer (auto-join)"}`,
    }),
  ]);
  return { sessionId: session.id, userId, teamId: login.teamId, next: login.next };
}
