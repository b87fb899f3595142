#!/usr/bin/env node
// A real OpenID provider on loopback for local development and the browser suite: oidc-provider (a certified
// OpenID Connect implementation) with one confidential client, a fixed account store, PKCE required, and the
// `email` claims in the ID token. Nothing leaves the machine; keys and sessions live in memory for one run.
//
//   node scripts/dev-oidc-provider.mjs [--port 9400] [--client-id ..] [--client-secret ..] [--redirect-uri ..]... [--adversary]
//
// --adversary adds the refusal tests' tool: POST /__adversary?attack=<name> makes the NEXT token response carry a
// forged ID token (see ATTACKS), so the relying party's ID token checks (OpenID Connect Core 1.0 §3.1.3.7) run for
// real against a real code flow. Tests import startOidcProvider() and call attack() directly.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { CompactSign, decodeJwt, decodeProtectedHeader, importJWK } from "jose";
import Provider from "oidc-provider";

/** The fixed people of the local provider (sub is the account id; people sign in by their address). */
export const ACCOUNTS = [
  { sub: "alice", email: "alice@acme.test", email_verified: true, name: "Alice Acme" },
  { sub: "bob", email: "bob@acme.test", email_verified: true, name: "Bob Acme" },
  { sub: "eve", email: "eve@other.test", email_verified: true, name: "Eve Other" },
  // An address the provider never confirmed: a relying party must not trust it (Core §5.1, email_verified).
  { sub: "mallory", email: "mallory@acme.test", email_verified: false, name: "Mallory Unverified" },
];

/**
 * Forged ID tokens, one per check a relying party owes (Core §3.1.3.7; §3.1.2.1 and §15.5.2 for the nonce).
 * Each changes exactly one thing of the genuine token the provider just issued for this very code exchange.
 */
export const ATTACKS = {
  /** A byte of the RS256 signature flipped: the signature no longer verifies (§3.1.3.7 item 6). */
  tampered: (t) => t.withSignature(flipByte(t.signature)),
  /** The same claims and kid, signed with a key that is not in the provider's JWKS (item 6). */
  "foreign-key": (t) => t.sign(t.payload, t.foreignKey),
  /** Signed by the provider, but for another client (item 3). */
  "wrong-audience": (t) => t.sign({ ...t.payload, aud: "another-client" }),
  /** Signed by the provider, but claiming another issuer (item 2). */
  "wrong-issuer": (t) => t.sign({ ...t.payload, iss: "https://idp.attacker.test" }),
  /** Signed by the provider, expired 5 minutes ago (item 9; beyond any reasonable clock skew). Issued 8 minutes ago,
   *  so that a relying party's limit on a token's age (item 10) is not what refuses it. */
  expired: (t) => {
    const now = Math.floor(Date.now() / 1000);
    return t.sign({ ...t.payload, iat: now - 8 * 60, exp: now - 5 * 60 });
  },
  /** An earlier genuine ID token (valid signature, audience and lifetime) whose nonce belongs to another sign-in (item 11). */
  "replayed-nonce": (t) => {
    const earlier = t.earlier.find((jwt) => decodeJwt(jwt).nonce !== t.payload.nonce);
    if (!earlier) throw new Error("replayed-nonce needs an earlier sign-in through this provider first");
    return earlier;
  },
  /** alg "none", no signature at all (item 7: the client registered RS256). */
  unsigned: (t) => `${b64json({ alg: "none", typ: "JWT" })}.${b64json(t.payload)}.`,
};

const b64json = (value) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** The signature with one bit of its middle byte changed (not the last characters, whose spare bits may not count). */
function flipByte(signature) {
  const bytes = Buffer.from(signature, "base64url");
  bytes[bytes.length >> 1] ^= 0x01;
  return bytes.toString("base64url");
}

/** A fresh RS256 signing key as a private JWK (also the public half, for the foreign key's kid reuse). */
function rsaJwk(kid) {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" };
}

/**
 * Starts the provider on `localhost:<port>` (loopback only, IPv4 and IPv6: "localhost" may resolve to either).
 * Port 0 picks a free one. Returns { issuer, clientId, clientSecret, attack(name), stop() }.
 */
export async function startOidcProvider({
  port = 9400,
  clientId = "emailauth-dev",
  clientSecret = "dev-client-secret-not-for-production",
  redirectUris = ["http://127.0.0.1:8787/sso/callback"],
  adversary = false,
  log = () => undefined,
} = {}) {
  const byEmail = new Map(ACCOUNTS.map((a) => [a.email, a]));
  const bySub = new Map(ACCOUNTS.map((a) => [a.sub, a]));
  const signingJwk = rsaJwk(`dev-${randomBytes(4).toString("hex")}`);
  // Same kid as the real key: the relying party must find the key by kid and still refuse the signature.
  const foreignJwk = rsaJwk(signingJwk.kid);
  const earlier = [];
  let pending = null;

  // Listen first: the issuer names the port, and the port is only known once bound.
  const handler = { current: (_req, res) => res.writeHead(503).end() };
  const servers = [createServer((q, s) => handler.current(q, s))];
  await new Promise((resolve, reject) => servers[0].once("error", reject).listen(port, "127.0.0.1", resolve));
  const bound = servers[0].address().port;
  const v6 = createServer((q, s) => handler.current(q, s));
  // ::1 too when the machine has IPv6 loopback; without it "localhost" resolves to 127.0.0.1 only.
  if (await new Promise((resolve) => v6.once("error", () => resolve(false)).listen(bound, "::1", () => resolve(true)))) servers.push(v6);
  const issuer = `http://localhost:${bound}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [signingJwk] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    async findAccount(_ctx, sub) {
      const account = bySub.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ ...account }) };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // The ID token carries the scope's claims even though an access token is issued (the relying party reads the
    // address from the ID token, not from userinfo).
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // One first-party client: the grant is given at sign-in, no consent screen.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
  });

  // The adversary sits after the token endpoint: the code exchange, PKCE and client authentication are all real.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route !== "token" || ctx.status !== 200 || typeof ctx.body?.id_token !== "string") return;
    const genuine = ctx.body.id_token;
    const attack = pending;
    pending = null;
    if (attack) {
      const [h, p, signature] = genuine.split(".");
      const header = decodeProtectedHeader(genuine);
      const payload = decodeJwt(genuine);
      const sign = async (claims, jwk = signingJwk) =>
        new CompactSign(Buffer.from(JSON.stringify(claims))).setProtectedHeader(header).sign(await importJWK(jwk, "RS256"));
      const forged = await ATTACKS[attack]({
        payload,
        signature,
        earlier,
        foreignKey: foreignJwk,
        sign,
        withSignature: (s) => `${h}.${p}.${s}`,
      });
      ctx.body = { ...ctx.body, id_token: forged };
      log(`token response for ${payload.sub}: ${attack} ID token`);
    } else {
      log(`token response for ${decodeJwt(genuine).sub}: genuine ID token`);
    }
    earlier.unshift(genuine);
  });

  const callback = provider.callback();
  handler.current = (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    if (adversary && url.pathname === "/__adversary" && req.method === "POST") {
      const name = url.searchParams.get("attack") ?? "";
      if (!(name in ATTACKS)) return res.writeHead(400, { "content-type": "text/plain" }).end(`attacks: ${Object.keys(ATTACKS).join(", ")}\n`);
      pending = name;
      return res.writeHead(204).end();
    }
    const login = url.pathname.match(/^\/interaction\/([\w-]+)(\/login|\/abort)?$/);
    if (login) return interaction(provider, byEmail, req, res, login[2] ?? "").catch((e) => fail(res, e));
    return callback(req, res);
  };

  return {
    issuer,
    clientId,
    clientSecret,
    port: bound,
    accounts: ACCOUNTS,
    /** The next token response carries this forged ID token (one of ATTACKS). */
    attack(name) {
      if (!(name in ATTACKS)) throw new Error(`unknown attack ${name}`);
      pending = name;
    },
    async stop() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise((r) => {
              s.closeAllConnections?.();
              s.close(r);
            }),
        ),
      );
    },
  };
}

function fail(res, e) {
  if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain; charset=utf-8" });
  res.end(`Sign-in failed: ${e?.message ?? e}\n`);
}

const html = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The provider's own sign-in page: pick a person by address (a local test provider: no password). */
async function interaction(provider, byEmail, req, res, action) {
  const details = await provider.interactionDetails(req, res);
  if (action === "/abort") {
    return provider.interactionFinished(req, res, { error: "access_denied", error_description: "The person cancelled the sign-in." });
  }
  if (action === "/login" && req.method === "POST") {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const email = (new URLSearchParams(Buffer.concat(chunks).toString("utf8")).get("email") ?? "").trim().toLowerCase();
    const account = byEmail.get(email);
    if (account) return provider.interactionFinished(req, res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
    return page(res, 400, details, email, `No account ${email} at this provider.`);
  }
  return page(res, 200, details, details.params.login_hint ?? "", "");
}

function page(res, status, details, email, error) {
  const people = ACCOUNTS.map((a) => `<li><code>${html(a.email)}</code>${a.email_verified ? "" : " (address not verified)"}</li>`).join("");
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in - local OpenID provider</title>
<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
label{display:block;font-weight:600}input{font:inherit;width:100%;box-sizing:border-box;padding:.4rem}
button{font:inherit;margin-top:.75rem;padding:.4rem 1rem}.error{color:#a00000}</style></head>
<body><main><h1>Local OpenID provider</h1>
<p>Signing in to <strong>${html(details.params.client_id)}</strong>. Development only: no password.</p>
${error ? `<p class="error" role="alert">${html(error)}</p>` : ""}
<form method="post" action="/interaction/${html(details.uid)}/login">
<label for="email">Email address</label><input id="email" name="email" type="email" required value="${html(email)}" autocomplete="off">
<button type="submit">Sign in</button></form>
<p><a href="/interaction/${html(details.uid)}/abort">Cancel</a></p>
<h2>People at this provider</h2><ul>${people}</ul></main></body></html>`);
}

// Run as a script: settings from flags or the environment, defaults matching `npm start` (127.0.0.1:8787).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: process.env.OIDC_PORT ?? "9400" },
      "client-id": { type: "string", default: process.env.OIDC_CLIENT_ID ?? "emailauth-dev" },
      "client-secret": { type: "string", default: process.env.OIDC_CLIENT_SECRET ?? "dev-client-secret-not-for-production" },
      "redirect-uri": { type: "string", multiple: true },
      adversary: { type: "boolean", default: process.env.OIDC_ADVERSARY === "true" },
    },
  });
  // The dev server answers on both names; the callback follows the origin the dashboard was opened on.
  const port = process.env.PORT ?? "8787";
  const sites = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  const redirectUris = values["redirect-uri"] ?? (process.env.OIDC_REDIRECT_URIS?.split(",") || sites.map((s) => `${s}/sso/callback`));
  const op = await startOidcProvider({
    port: Number(values.port),
    clientId: values["client-id"],
    clientSecret: values["client-secret"],
    redirectUris,
    adversary: values.adversary,
    log: (line) => console.log(line),
  });
  console.log(`OpenID provider: ${op.issuer}  (discovery: ${op.issuer}/.well-known/openid-configuration)`);
  console.log(`Client id: ${op.clientId}\nClient secret: ${op.clientSecret}\nRedirect URIs: ${redirectUris.join(", ")}`);
  console.log(`People: ${ACCOUNTS.map((a) => `${a.email}${a.email_verified ? "" : " (unverified)"}`).join(", ")}`);
  if (values.adversary) console.log(`Adversary: curl -X POST "${op.issuer}/__adversary?attack=<${Object.keys(ATTACKS).join("|")}>"`);
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => op.stop().then(() => process.exit(0)));
}
