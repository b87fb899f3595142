// Checking an ID token in full (OpenID Connect Core §3.1.3.7): the JOSE work (signature against the
// provider's keys, iss, aud, exp, iat) by jose, then the claims this service relies on (azp, nonce,
// email, email_verified, the covered domain). Pure: the key set is injected (a remote JWKS in production).
import { errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from "jose";
import { err, ok, type Result } from "../types";
import { ID_TOKEN_ALGS } from "./discovery";

/**
 * Clock skew allowed on exp and iat: 60 s. Provider and Worker clocks are NTP-synced; a minute
 * absorbs their drift and the token's trip through the browser without keeping an expired token
 * usable for long (ID tokens commonly live 5-60 minutes).
 */
export const CLOCK_SKEW_S = 60;
/** An ID token is issued during the callback; one older than the sign-in's own 10 minutes is not from this sign-in. */
export const MAX_TOKEN_AGE_S = 600;

export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  nonce: string;
  /** Lower-case email domains the token's address may be in (the team's verified covered domains). */
  domains: readonly string[];
  now: Date;
}

export interface IdTokenIdentity {
  sub: string;
  email: string;
}

/** The domain of an address, lower-cased (the part after the last "@"), or null. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf("@");
  if (at <= 0 || at === email.length - 1) return null;
  return email.slice(at + 1).toLowerCase();
}

/** The claim checks jose leaves to the relying party. Exported for unit tests. */
export function checkClaims(payload: JWTPayload, expect: IdTokenExpectations): Result<IdTokenIdentity> {
  // Core §3.1.3.7 items 4-5: with several audiences azp must be present; when present it must be this client.
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (audiences.length > 1 && payload.azp === undefined) return err("the ID token has several audiences and no azp");
  if (payload.azp !== undefined && payload.azp !== expect.clientId) return err("the ID token was issued to another client (azp)");
  // Core §3.1.3.7 item 11: the nonce must equal the one sent in the authentication request.
  if (typeof payload.nonce !== "string" || payload.nonce !== expect.nonce) return err("the ID token's nonce does not match this sign-in");
  if (typeof payload.sub !== "string" || payload.sub === "") return err("the ID token has no subject");
  const email = payload.email;
  if (typeof email !== "string" || email === "") return err("the provider did not send an email address (ask for the email scope)");
  // Core §5.1: email_verified is a JSON boolean; a string "true" is not a verified address. Microsoft Entra ID
  // never sends it for work accounts; its optional claim xms_edov ("email domain owner verified", a boolean)
  // says the same and counts only where email_verified is absent, never against a false (docs/decisions.md D271).
  const verified = payload.email_verified === true || (payload.email_verified === undefined && payload.xms_edov === true);
  if (!verified) return err("the provider has not verified this email address");
  // Accounts are keyed by the lower-cased address (as the email link keys them). A character may fold
  // only when it is the upper case of its lower case (A to a, É to é); U+212A KELVIN SIGN lower-cases to
  // "k" and U+0130 to "i" with a dot, so a mailbox the provider verified would stand for another
  // person's address (docs/decisions.md D269).
  if (![...email].every((ch) => ch.toLowerCase() === ch || ch.toLowerCase().toUpperCase() === ch)) {
    return err("the email address has a character whose lower case is another letter (such as the Kelvin sign), so it cannot be matched to an account");
  }
  const domain = emailDomain(email);
  if (domain === null || !expect.domains.includes(domain)) return err("this email address is not in a domain the team's single sign-on covers");
  return ok({ sub: payload.sub, email: email.toLowerCase() });
}

/** A readable reason for a jose refusal (the page shows it; it never contains the token). */
function joseReason(e: unknown): string {
  if (e instanceof errors.JWTExpired) return e.claim === "iat" ? "the ID token is too old" : "the ID token has expired";
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === "iss") return "the ID token comes from another issuer";
    if (e.claim === "aud") return "the ID token was issued for another client (aud)";
    if (e.claim === "iat") return "the ID token's issue time is in the future";
    return `the ID token's ${e.claim} claim is not acceptable`;
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return "the ID token's signature does not verify";
  if (e instanceof errors.JOSEAlgNotAllowed) return "the ID token is signed with an algorithm this service does not accept";
  if (e instanceof errors.JWKSNoMatchingKey) return "no key of the provider matches the ID token";
  if (e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid) return "the provider's keys could not be read";
  if (e instanceof errors.JWTInvalid || e instanceof errors.JWSInvalid) return "the ID token is malformed";
  return "the ID token could not be verified";
}

export async function verifyIdToken(idToken: string, keys: JWTVerifyGetKey, expect: IdTokenExpectations): Promise<Result<IdTokenIdentity>> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keys, {
      // An allow-list: "none" and HS* never verify, so a public key can never act as an HMAC secret.
      algorithms: [...ID_TOKEN_ALGS],
      issuer: expect.issuer,
      audience: expect.clientId,
      clockTolerance: CLOCK_SKEW_S,
      // Makes iat required and refuses one in the future (beyond the skew) or older than the sign-in.
      maxTokenAge: MAX_TOKEN_AGE_S,
      requiredClaims: ["exp", "iat", "sub", "nonce"],
      currentDate: expect.now,
    }));
  } catch (e) {
    return err(joseReason(e));
  }
  return checkClaims(payload, expect);
}
