// The service's ID token checks (src/core/sso) against a real, certified OpenID provider run locally
// (oidc-provider in scripts/dev-oidc-provider.mjs): a real authorization code flow with PKCE and nonce, the
// provider's real discovery document and JWKS, and the ID tokens its token endpoint returns, genuine or forged
// by the script's adversary. Every item of OpenID Connect Core 1.0 §3.1.3.7 that the forgeries break must
// refuse the token; the genuine one must pass. The whole callback, with its session, is in
// test/browser/sso.browser.mjs.
import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalOidcProvider, type OidcAttack, startOidcProvider } from "../../scripts/dev-oidc-provider.mjs";
import { type ProviderEndpoints, readDiscovery } from "../../src/core/sso/discovery";
import { verifyIdToken } from "../../src/core/sso/id-token";

const REDIRECT_URI = "http://127.0.0.1:9/sso/callback";
let op: LocalOidcProvider;
let endpoints: ProviderEndpoints;

/** A browser's cookie jar for the provider's own session, one per person. */
class Jar {
  private cookies = new Map<string, string>();
  header = () => [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0] ?? "";
      const eq = pair.indexOf("=");
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }
}

/**
 * One sign-in as a relying party does it (Core §3.1.2.1: response_type code, state, nonce; RFC 7636 S256), the
 * person signing in on the provider's page, then the code redeemed with client_secret_basic (Core §9). Returns
 * the ID token the token endpoint answered and the nonce this sign-in sent.
 */
async function signIn(email: string, attack?: OidcAttack): Promise<{ idToken: string; nonce: string }> {
  const jar = new Jar();
  const verifier = randomBytes(32).toString("base64url");
  const nonce = randomBytes(16).toString("base64url");
  const authorize = new URL(endpoints.authorization_endpoint);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: op.clientId,
    redirect_uri: REDIRECT_URI,
    scope: "openid email profile",
    state: randomBytes(16).toString("base64url"),
    nonce,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  }))
    authorize.searchParams.set(k, v);
  let next = authorize;
  for (let hop = 0; !next.href.startsWith(REDIRECT_URI); hop++) {
    if (hop > 6) throw new Error("the provider never redirected back");
    let res = await fetch(next, { redirect: "manual", headers: { cookie: jar.header() } });
    jar.keep(res);
    if (res.status === 200) {
      // The provider's sign-in page: its form posts the address.
      const action = (await res.text()).match(/<form method="post" action="([^"]+)"/)?.[1];
      if (!action) throw new Error("no sign-in form on the provider's page");
      res = await fetch(new URL(action, op.issuer), {
        method: "POST",
        redirect: "manual",
        headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email }),
      });
      jar.keep(res);
    }
    const location = res.headers.get("location");
    if (!location) throw new Error(`the provider answered ${res.status} without a redirect`);
    next = new URL(location, op.issuer);
  }
  const code = next.searchParams.get("code");
  if (!code) throw new Error(`no code in ${next.href}`);
  if (attack) op.attack(attack);
  const res = await fetch(endpoints.token_endpoint, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${op.clientId}:${op.clientSecret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: verifier }),
  });
  const body = (await res.json()) as { id_token?: string };
  if (typeof body.id_token !== "string") throw new Error(`token endpoint: ${res.status} ${JSON.stringify(body)}`);
  return { idToken: body.id_token, nonce };
}

const check = async (idToken: string, nonce: string, domains = ["acme.test"]) =>
  verifyIdToken(idToken, createRemoteJWKSet(new URL(endpoints.jwks_uri)), { issuer: op.issuer, clientId: op.clientId, nonce, domains, now: new Date() });

beforeAll(async () => {
  op = await startOidcProvider({ port: 0, redirectUris: [REDIRECT_URI], adversary: true });
  const doc: unknown = await (await fetch(`${op.issuer}/.well-known/openid-configuration`)).json();
  const read = readDiscovery(doc, op.issuer);
  if (!read.ok) throw new Error(read.error);
  endpoints = read.value;
});
afterAll(async () => {
  await op?.stop();
});

describe("ID token validation (OpenID Connect Core 1.0 §3.1.3.7) against oidc-provider", () => {
  it("reads the provider's discovery document: code flow endpoints and client_secret_basic (Discovery §3)", () => {
    expect(endpoints).toEqual({
      authorization_endpoint: `${op.issuer}/auth`,
      token_endpoint: `${op.issuer}/token`,
      jwks_uri: `${op.issuer}/jwks`,
      token_auth: "client_secret_basic",
      // oidc-provider puts iss in its authorization responses and says so (RFC 9207 §3).
      iss_parameter: true,
    });
  });

  it("accepts the genuine ID token of a verified address in a covered domain", async () => {
    const { idToken, nonce } = await signIn("alice@acme.test");
    const result = await check(idToken, nonce);
    expect(result).toEqual({ ok: true, value: { sub: "alice", email: "alice@acme.test" } });
  });

  // Each forgery changes one thing of the token the provider issued for this very code exchange.
  const refusals: [OidcAttack, RegExp, string][] = [
    ["tampered", /signature does not verify/, "item 6: the signature against the provider's keys"],
    ["foreign-key", /signature does not verify/, "item 6: a key that is not the provider's, under its kid"],
    ["wrong-audience", /another client \(aud\)/, "item 3: aud contains the client id"],
    ["wrong-issuer", /another issuer/, "item 2: iss equals the issuer exactly"],
    ["expired", /has expired/, "item 9: exp, beyond the allowed skew"],
    ["replayed-nonce", /nonce does not match/, "item 11: the nonce of this sign-in"],
    ["unsigned", /algorithm this service does not accept/, "item 7: alg none is never accepted"],
  ];
  for (const [attack, reason, rule] of refusals) {
    it(`refuses a ${attack} ID token (${rule})`, async () => {
      const { idToken, nonce } = await signIn("alice@acme.test", attack);
      const result = await check(idToken, nonce);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(reason);
    });
  }

  it("refuses an address the provider has not verified (Core §5.1 email_verified)", async () => {
    const { idToken, nonce } = await signIn("mallory@acme.test");
    expect(await check(idToken, nonce)).toEqual({ ok: false, error: "the provider has not verified this email address" });
  });

  it("refuses a verified address outside the team's covered domains", async () => {
    const { idToken, nonce } = await signIn("eve@other.test");
    const result = await check(idToken, nonce);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/not in a domain/);
  });
});
