// Talking to a team's OpenID provider over the outbound fetch: its discovery document (when the owner
// saves the configuration), the token endpoint and its key set (during a sign-in). Every URL passes the
// same outbound rules as webhook targets (https; no private or loopback address unless the operator set
// WEBHOOK_ALLOW_INSECURE / WEBHOOK_ALLOW_PRIVATE for a local provider: docs/decisions.md D246).
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey } from "jose";
import { fetchTextCapped, readCapped } from "../../core/net/http";
import { resolveAndCheckTarget, type TargetOptions, validateTargetUrl } from "../../core/net/target";
import { checkIssuer, discoveryUrl, type ProviderEndpoints, readDiscovery } from "../../core/sso/discovery";
import { ApiError, dependencyUnavailable, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";

const DISCOVERY_MAX_BYTES = 100_000;
const TOKEN_MAX_BYTES = 100_000;
/** A provider's key set is a few kilobytes (a handful of keys, several during a rotation). */
const JWKS_MAX_BYTES = 100_000;
const PROVIDER_TIMEOUT_MS = 10_000;

export const targetOptions = (svc: Services): TargetOptions => ({
  allowInsecure: svc.config.webhookAllowInsecure,
  allowPrivate: svc.config.webhookAllowPrivate,
});

/** A URL this service will fetch: shape and, before saving, its resolved addresses. */
async function assertFetchable(svc: Services, field: string, url: string): Promise<void> {
  const checked = await resolveAndCheckTarget(url, svc.createResolver(), targetOptions(svc));
  if (checked.ok) return;
  if (checked.error.code === "dns_temperror") throw dependencyUnavailable(`Could not resolve the provider's host: ${checked.error.message}`);
  throw validationFailed({ [field]: [`${url}: ${checked.error.message}`] });
}

/**
 * Fetches and checks `<issuer>/.well-known/openid-configuration` (OpenID Connect Discovery §4):
 * the issuer it names must be identical to the one configured (§4.3), and the endpoints this service
 * calls must pass the outbound rules. A refusal is a 422 on `issuer` saying why.
 */
export async function discoverProvider(svc: Services, issuer: string): Promise<ProviderEndpoints> {
  const shape = checkIssuer(issuer, svc.config.webhookAllowInsecure);
  if (!shape.ok) throw validationFailed({ issuer: [shape.error] });
  const url = discoveryUrl(issuer);
  await assertFetchable(svc, "issuer", url);
  const fetched = await fetchTextCapped(svc.fetch, url, { maxBytes: DISCOVERY_MAX_BYTES, timeoutMs: PROVIDER_TIMEOUT_MS, accept: "application/json" });
  if (!fetched.ok) throw validationFailed({ issuer: [`${url} could not be fetched (${fetched.error})`] });
  if (fetched.value.status !== 200) throw validationFailed({ issuer: [`${url} answered HTTP ${fetched.value.status}`] });
  if (fetched.value.tooLarge) throw validationFailed({ issuer: [`${url} is larger than ${DISCOVERY_MAX_BYTES} bytes`] });
  let doc: unknown;
  try {
    doc = JSON.parse(fetched.value.body);
  } catch {
    throw validationFailed({ issuer: [`${url} is not JSON`] });
  }
  const endpoints = readDiscovery(doc, issuer);
  if (!endpoints.ok) throw validationFailed({ issuer: [endpoints.error] });
  // The browser visits the authorization endpoint; the Worker fetches the other two.
  const authorize = validateTargetUrl(endpoints.value.authorization_endpoint, targetOptions(svc));
  if (!authorize.ok) throw validationFailed({ issuer: [`authorization_endpoint: ${authorize.error.message}`] });
  await assertFetchable(svc, "issuer", endpoints.value.token_endpoint);
  await assertFetchable(svc, "issuer", endpoints.value.jwks_uri);
  return endpoints.value;
}

/** A refusal during a sign-in: a 4xx page that says what went wrong (never a token or secret). */
export const signInRefused = (status: 400 | 403, message: string) => new ApiError(status, status === 403 ? "forbidden" : "bad_request", message);

/**
 * The provider's key set, fetched through the service's outbound fetch (5 s timeout) and read up to
 * JWKS_MAX_BYTES like every other answer of the provider: jose would read any body whole into memory
 * (docs/decisions.md D269).
 */
export function providerKeys(svc: Services, endpoints: ProviderEndpoints): JWTVerifyGetKey {
  const checked = validateTargetUrl(endpoints.jwks_uri, targetOptions(svc));
  if (!checked.ok) throw signInRefused(400, `The provider's key set address is not allowed: ${checked.error.message}`);
  return createRemoteJWKSet(checked.value, {
    timeoutDuration: 5_000,
    [customFetch]: async (url, init) => {
      const res = await svc.fetch(url, init);
      if (res.status !== 200) return res;
      const read = await readCapped(res, JWKS_MAX_BYTES);
      if (!read.ok) throw new errors.JWKSInvalid(`the key set could not be read (${read.error})`);
      if (read.value.tooLarge) throw new errors.JWKSInvalid(`the key set is larger than ${JWKS_MAX_BYTES} bytes`);
      return new Response(read.value.body, { status: 200, headers: { "content-type": res.headers.get("content-type") ?? "application/json" } });
    },
  });
}

const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");

/**
 * Redeems the authorization code at the token endpoint (RFC 6749 §4.1.3 with the PKCE verifier,
 * RFC 7636 §4.5) and returns the ID token. Client authentication per OpenID Connect Core §9:
 * client_secret_basic sends the form-encoded id and secret in HTTP Basic (RFC 6749 §2.3.1).
 */
export async function redeemCode(
  svc: Services,
  endpoints: ProviderEndpoints,
  input: { code: string; redirectUri: string; codeVerifier: string; clientId: string; clientSecret: string },
): Promise<string> {
  const checked = validateTargetUrl(endpoints.token_endpoint, targetOptions(svc));
  if (!checked.ok) throw signInRefused(400, `The provider's token endpoint is not allowed: ${checked.error.message}`);
  const form = new URLSearchParams({ grant_type: "authorization_code", code: input.code, redirect_uri: input.redirectUri, code_verifier: input.codeVerifier });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  if (endpoints.token_auth === "client_secret_basic") {
    headers.authorization = `Basic ${btoa(`${formEncode(input.clientId)}:${formEncode(input.clientSecret)}`)}`;
  } else {
    form.set("client_id", input.clientId);
    form.set("client_secret", input.clientSecret);
  }
  let res: Response;
  try {
    res = await svc.fetch(checked.value.href, {
      method: "POST",
      headers,
      body: form.toString(),
      redirect: "manual",
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch (e) {
    throw signInRefused(400, `The provider's token endpoint could not be reached (${e instanceof Error ? e.name : "error"}). Try again.`);
  }
  const read = await readCapped(res, TOKEN_MAX_BYTES);
  if (!read.ok) throw signInRefused(400, "The provider's token response could not be read. Try again.");
  if (read.value.tooLarge) throw signInRefused(400, "The provider's token response is too large.");
  const text = read.value.body;
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // Reported below as a refusal without the body's content.
  }
  if (res.status !== 200) {
    // RFC 6749 §5.2: error is an ASCII code; shown as a code, never the description verbatim at length.
    const code = typeof body.error === "string" ? body.error.slice(0, 60) : `HTTP ${res.status}`;
    throw signInRefused(400, `The provider refused to redeem the sign-in (${code}). Start again.`);
  }
  if (typeof body.id_token !== "string") throw signInRefused(400, "The provider's token response has no ID token.");
  return body.id_token;
}
