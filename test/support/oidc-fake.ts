// A fake OpenID provider at the edge: the Worker's outbound fetch (spied by the DoH stub's passthrough)
// reaches its discovery document, its JWKS and its token endpoint. ID tokens are signed here with jose,
// genuinely (RS256) or forged on purpose (tampered, alg none, HS256 keyed with the public key, a foreign
// key) to test that the Worker refuses them. The token endpoint checks client_secret_basic and PKCE S256
// (RFC 7636 §4.6) like a real provider would.
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { expect } from "vitest";
import { type DohStub, installDohStub, type StubZone } from "./doh-stub";
import { PUBLIC_IP } from "./webhooks";

export const ISSUER = "https://idp.test";
export const CLIENT_ID = "emailauth-test-client";
export const CLIENT_SECRET = "s3cret-value-for-the-fake-provider";

export type Forgery = "tampered" | "alg_none" | "hs256_public_key" | "foreign_key";

export interface IssueOptions {
  /** Claims replacing or adding to the genuine ones (undefined removes a claim). */
  claims?: Record<string, unknown>;
  forge?: Forgery;
}

interface Grant {
  challenge: string;
  nonce: string;
  redirectUri: string;
  email: string;
  opts: IssueOptions;
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const b64urlJson = (v: unknown) => b64url(new TextEncoder().encode(JSON.stringify(v)));

export interface FakeProvider {
  stub: DohStub;
  zone: StubZone;
  /** What /sso/start sent the browser to: checks its parameters and returns a code for the callback. */
  authorize(location: string, opts?: IssueOptions): string;
  /** Token requests received (their form bodies and authorization headers). */
  tokenRequests: Array<{ body: URLSearchParams; authorization: string | null }>;
  /** The discovery document served (tests may change it). */
  discovery: Record<string, unknown>;
  /** Members added to the JWKS document served (tests may make it oversized). */
  jwksExtra: Record<string, unknown>;
  /** Publishes the ownership TXT record of an SSO domain. */
  /** Publishes the TXT record(s) at `host`, replacing what was there. */
  publishTxt(host: string, ...values: string[]): void;
}

export async function installFakeProvider(): Promise<FakeProvider> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const foreign = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const spki = await exportSPKI(publicKey);
  const grants = new Map<string, Grant>();
  const tokenRequests: FakeProvider["tokenRequests"] = [];
  const jwksExtra: Record<string, unknown> = {};
  const discovery: Record<string, unknown> = {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/authorize`,
    token_endpoint: `${ISSUER}/token`,
    jwks_uri: `${ISSUER}/jwks`,
    response_types_supported: ["code"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
  };

  async function idToken(g: Grant): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = {
      iss: ISSUER,
      aud: CLIENT_ID,
      sub: `sub-${g.email}`,
      email: g.email,
      email_verified: true,
      nonce: g.nonce,
      iat: now,
      exp: now + 300,
    };
    for (const [k, v] of Object.entries(g.opts.claims ?? {})) {
      if (v === undefined) delete claims[k];
      else claims[k] = v;
    }
    const forge = g.opts.forge;
    if (forge === "alg_none") return `${b64urlJson({ alg: "none", typ: "JWT" })}.${b64urlJson(claims)}.`;
    if (forge === "hs256_public_key") {
      return new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: "k1" }).sign(new TextEncoder().encode(spki));
    }
    const signed = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "k1" }).sign(forge === "foreign_key" ? foreign.privateKey : privateKey);
    if (forge === "tampered") {
      // The payload changed after signing (another address), the signature kept.
      const [h, , s] = signed.split(".");
      return `${h}.${b64urlJson({ ...claims, email: `ceo@${g.email.split("@")[1]}` })}.${s}`;
    }
    return signed;
  }

  async function token(req: Request): Promise<Response> {
    const body = new URLSearchParams(await req.text());
    const authorization = req.headers.get("authorization");
    tokenRequests.push({ body, authorization });
    const expected = `Basic ${btoa(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`)}`;
    const basicOk = authorization === expected;
    const postOk = authorization === null && body.get("client_id") === CLIENT_ID && body.get("client_secret") === CLIENT_SECRET;
    // The method must be one the discovery document lists (absent means client_secret_basic, Discovery §3).
    const methods = (discovery.token_endpoint_auth_methods_supported as string[] | undefined) ?? ["client_secret_basic"];
    if (!((basicOk && methods.includes("client_secret_basic")) || (postOk && methods.includes("client_secret_post")))) {
      return Response.json({ error: "invalid_client" }, { status: 401 });
    }
    const code = body.get("code") ?? "";
    const grant = grants.get(code);
    grants.delete(code);
    if (!grant || body.get("grant_type") !== "authorization_code" || body.get("redirect_uri") !== grant.redirectUri) {
      return Response.json({ error: "invalid_grant" }, { status: 400 });
    }
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body.get("code_verifier") ?? "")));
    if (b64url(digest) !== grant.challenge) return Response.json({ error: "invalid_grant", error_description: "PKCE verification failed" }, { status: 400 });
    return Response.json({ access_token: "at", token_type: "Bearer", expires_in: 300, id_token: await idToken(grant) });
  }

  const zone: StubZone = { "idp.test": { A: [PUBLIC_IP] } };
  const stub = installDohStub(zone, {
    passthrough: async (req) => {
      const url = new URL(req.url);
      if (url.origin !== ISSUER) return new Response("not found", { status: 404 });
      if (url.pathname === "/.well-known/openid-configuration") return Response.json(discovery);
      if (url.pathname === "/jwks") return Response.json({ ...jwksExtra, keys: [jwk] });
      if (url.pathname === "/token" && req.method === "POST") return token(req);
      return new Response("not found", { status: 404 });
    },
  });

  return {
    stub,
    zone,
    tokenRequests,
    discovery,
    jwksExtra,
    authorize(location, opts = {}) {
      const url = new URL(location);
      expect(url.origin + url.pathname).toBe(`${ISSUER}/authorize`);
      const p = url.searchParams;
      expect(p.get("response_type")).toBe("code");
      expect(p.get("scope")?.split(" ")).toEqual(expect.arrayContaining(["openid", "email"]));
      expect(p.get("client_id")).toBe(CLIENT_ID);
      expect(p.get("code_challenge_method")).toBe("S256");
      expect(p.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(p.get("state")).toBeTruthy();
      expect(p.get("nonce")).toBeTruthy();
      const code = crypto.randomUUID();
      grants.set(code, {
        challenge: p.get("code_challenge") ?? "",
        nonce: p.get("nonce") ?? "",
        redirectUri: p.get("redirect_uri") ?? "",
        email: (opts.claims?.email as string | undefined) ?? p.get("login_hint") ?? "",
        opts,
      });
      return code;
    },
    publishTxt(host, ...values) {
      zone[host] = { TXT: values };
    },
  };
}
