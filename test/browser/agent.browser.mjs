// The agent endpoint as users run it, against wrangler dev with DNS from the local DoH server:
// (a) a token agent (a team token made in the dashboard) drives /mcp with the official SDK client: lists
// the tools, adds a domain with a weak posture, verifies it, queues a check, waits for it and reads the
// fixes; (b) a desktop assistant goes through OAuth: discovery from the 401, RFC 7591 registration with a
// loopback redirect URI, the consent page in Chromium (S256 PKCE, read-only), the code exchanged and
// refreshed, a read tool called, then the grant revoked on /settings/agents and the next call refused.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { look, openMailLink, signIn, startStack } from "./harness.mjs";

const stamp = Date.now().toString(36);
const owner = `agent-owner-${stamp}@example.com`;
const domain = `agent-${stamp}.example`;

// p=none without rua: the posture has a DMARC fix to publish.
const zone = {
  [domain]: { TXT: ["v=spf1 ip4:192.0.2.0/24 ~all"], MX: [{ preference: 10, exchange: `mx.${domain}` }] },
  [`mx.${domain}`]: { A: ["192.0.2.10"] },
  [`_dmarc.${domain}`]: { TXT: ["v=DMARC1; p=none"] },
};

let stack;
let domainId = 0;

before(async () => {
  stack = await startStack({ port: 8930, zone });
});
after(async () => {
  await stack?.stop();
});

/** The official SDK client with a bearer credential, as an agent configured with headers would connect. */
async function connect(bearer) {
  const client = new Client({ name: "browser-suite-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool's structured result; fails the test on a tool error, showing it. */
async function call(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(!result.isError, `${name}: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  return result.structuredContent;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("a token agent lists the domains, adds and verifies one, queues a check and reads its DNS fixes", async () => {
  const { page, context } = await stack.person();
  await signIn(page, owner);
  await page.goto("/tokens");
  await page.getByLabel("Name").fill("CI agent");
  await page.getByLabel("Scope").selectOption("full");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.locator("#token-value").textContent()) ?? "";
  assert.match(token, /^eam_[0-9A-Za-z]{40}$/);
  await context.close();

  const client = await connect(token);
  assert.equal(client.getServerVersion()?.name, "emailauth-monitor");
  const { tools } = await client.listTools();
  for (const name of ["list_domains", "add_domain", "verify_domain", "check_domain", "list_domain_checks", "get_domain_posture"]) {
    assert.ok(
      tools.some((t) => t.name === name),
      `tool ${name} is listed`,
    );
  }
  assert.deepEqual((await call(client, "list_domains")).data, []);

  const added = await call(client, "add_domain", { name: domain });
  domainId = added.data.id;
  assert.equal(added.data.verification.host, `_emailauth-verify.${domain}`);
  // Before the record exists: not verified, a result rather than an error (no DNS failure involved).
  assert.equal((await call(client, "verify_domain", { domain_id: domainId })).data.verified, false);
  stack.doh.set(added.data.verification.host, { TXT: [added.data.verification.value] });
  assert.equal((await call(client, "verify_domain", { domain_id: domainId })).data.verified, true);

  const queued = await call(client, "check_domain", { domain_id: domainId });
  assert.equal(queued.data.status, "queued");
  // The local queue runs the check; an agent polls the history as the tool's description says.
  let checks = [];
  for (let i = 0; i < 240 && checks.length === 0; i++) {
    checks = (await call(client, "list_domain_checks", { domain_id: domainId })).data;
    if (checks.length === 0) await sleep(500);
  }
  assert.ok(checks.length > 0, "a check was recorded");
  assert.equal(checks[0].status, "completed");

  const detail = (await call(client, "get_domain_posture", { domain_id: domainId })).data;
  assert.ok(detail.posture, "the posture is stored");
  assert.ok(detail.fixes.length > 0, "the weak posture comes with fixes");
  assert.ok(
    detail.fixes.some((f) => JSON.stringify(f).includes(`_dmarc.${domain}`)),
    `a DMARC fix names _dmarc.${domain}: ${JSON.stringify(detail.fixes)}`,
  );
  const listed = (await call(client, "list_domains")).data;
  assert.deepEqual(
    listed.map((d) => d.name),
    [domain],
  );
  await client.close();
});

/** A loopback redirect receiver, as a desktop assistant runs (RFC 8252 §7.3): resolves with the callback's query. */
async function redirectReceiver() {
  let deliver;
  const received = new Promise((r) => {
    deliver = r;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Done</title><p>You can close this window.</p>");
    deliver(url.searchParams);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { uri: `http://127.0.0.1:${server.address().port}/callback`, received, close: () => new Promise((r) => server.close(r)) };
}

/** The browser part: not signed in, so sign in through the emailed link, come back to the consent page and allow. */
async function consent(page, authorizeUrl, clientName, access, shot, { email = owner, decision = "Allow" } = {}) {
  await page.goto(authorizeUrl);
  await page.getByLabel("Email address", { exact: true }).fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await page.getByRole("heading", { name: "Check your email" }).waitFor();
  await openMailLink(page, email);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: `Allow ${clientName} to use your account?` }).waitFor();
  if (shot) await look(page, shot);
  await page.locator("#consent-team").selectOption({ index: 0 });
  await page.getByRole("radio", { name: access }).check();
  await page.getByRole("button", { name: decision }).click();
}

const form = (fields) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
});

test("a desktop assistant signs in with OAuth, reads with a refreshed token, and is refused once revoked", async () => {
  // Discovery starts from the 401 (RFC 9728 §5.1).
  const unauth = await fetch(`${stack.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(unauth.status, 401);
  const pointer = /resource_metadata="([^"]+)"/.exec(unauth.headers.get("www-authenticate") ?? "")?.[1];
  assert.ok(pointer, `a resource_metadata pointer in ${unauth.headers.get("www-authenticate")}`);
  const resource = await (await fetch(pointer)).json();
  assert.equal(resource.resource, `${stack.url}/mcp`);
  const issuer = resource.authorization_servers[0];
  const meta = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
  assert.ok(meta.code_challenge_methods_supported.includes("S256"));

  const receiver = await redirectReceiver();
  try {
    const reg = await fetch(meta.registration_endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Desktop Assistant",
        redirect_uris: [receiver.uri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }),
    });
    assert.equal(reg.status, 201, await reg.clone().text());
    const { client_id } = await reg.json();

    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const state = randomBytes(16).toString("base64url");
    const authorize = new URL(meta.authorization_endpoint);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id,
      redirect_uri: receiver.uri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "read_only",
      state,
      resource: resource.resource,
    })) {
      authorize.searchParams.set(k, v);
    }

    const { page, context } = await stack.person();
    await consent(page, authorize.toString(), "Desktop Assistant", /Read-only/, "oauth-consent");
    const callback = await receiver.received;
    assert.equal(callback.get("state"), state);
    const code = callback.get("code");
    assert.ok(code, `a code at the redirect: ${callback}`);

    const tokenRes = await fetch(
      meta.token_endpoint,
      form({ grant_type: "authorization_code", code, redirect_uri: receiver.uri, client_id, code_verifier: verifier, resource: resource.resource }),
    );
    assert.equal(tokenRes.status, 200, await tokenRes.clone().text());
    const tokens = await tokenRes.json();
    assert.equal(tokens.token_type.toLowerCase(), "bearer");
    assert.equal(tokens.scope, "read_only");

    const agent = await connect(tokens.access_token);
    assert.deepEqual(
      (await call(agent, "list_domains")).data.map((d) => d.name),
      [domain],
    );
    // Read-only: a write tool refuses with a tool error (docs/decisions.md D42).
    const refused = await agent.callTool({ name: "check_domain", arguments: { domain_id: domainId } });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.error.code, "forbidden");
    await agent.close();

    const refreshRes = await fetch(meta.token_endpoint, form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id }));
    assert.equal(refreshRes.status, 200, await refreshRes.clone().text());
    const refreshed = await refreshRes.json();
    assert.notEqual(refreshed.access_token, tokens.access_token);
    const again = await connect(refreshed.access_token);
    assert.equal((await call(again, "get_domain_posture", { domain_id: domainId })).data.name, domain);
    await again.close();

    // The grant is on /settings/agents; revoking it stops the tokens at once.
    await page.goto("/settings/agents");
    await page.getByRole("cell", { name: "Desktop Assistant", exact: true }).waitFor();
    await look(page, "settings-agents");
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Revoke Desktop Assistant" }).click();
    await page.getByText("Access was revoked.").waitFor();
    assert.equal(await page.getByRole("cell", { name: "Desktop Assistant", exact: true }).count(), 0);
    await context.close();

    const gone = await fetch(`${stack.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${refreshed.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(gone.status, 401);
    const reRefresh = await fetch(meta.token_endpoint, form({ grant_type: "refresh_token", refresh_token: refreshed.refresh_token, client_id }));
    assert.equal(reRefresh.status, 400);
  } finally {
    await receiver.close();
  }
});

test("an MCP client with the SDK's own OAuth support connects after consent and refreshes by itself", async () => {
  const receiver = await redirectReceiver();
  // What a desktop assistant keeps between runs: its registration, PKCE verifier and tokens.
  const kept = { client: undefined, tokens: undefined, verifier: "", authorizeUrl: undefined };
  const provider = {
    get redirectUrl() {
      return receiver.uri;
    },
    get clientMetadata() {
      return {
        client_name: "SDK Assistant",
        redirect_uris: [receiver.uri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    clientInformation: () => kept.client,
    saveClientInformation: (info) => {
      kept.client = info;
    },
    tokens: () => kept.tokens,
    saveTokens: (tokens) => {
      kept.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      kept.authorizeUrl = url;
    },
    saveCodeVerifier: (v) => {
      kept.verifier = v;
    },
    codeVerifier: () => kept.verifier,
  };
  const endpoint = new URL(`${stack.url}/mcp`);
  try {
    const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await assert.rejects(new Client({ name: "sdk-assistant", version: "1.0.0" }).connect(first), UnauthorizedError);
    assert.ok(kept.client?.client_id, "the SDK registered itself");
    assert.ok(kept.authorizeUrl, "the SDK asked to open the authorize URL");
    assert.equal(kept.authorizeUrl.searchParams.get("code_challenge_method"), "S256");

    const { page, context } = await stack.person();
    await consent(page, kept.authorizeUrl.toString(), "SDK Assistant", /^Full/);
    const callback = await receiver.received;
    await context.close();
    await first.finishAuth(callback.get("code"));
    assert.ok(kept.tokens?.access_token && kept.tokens.refresh_token);

    const client = new Client({ name: "sdk-assistant", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    assert.deepEqual(
      (await call(client, "list_domains")).data.map((d) => d.name),
      [domain],
    );
    // A full grant may queue a check.
    assert.equal((await call(client, "check_domain", { domain_id: domainId })).data.status, "queued");
    await client.close();

    // An expired access token: the SDK refreshes with the stored refresh token, without the browser.
    kept.tokens = { ...kept.tokens, access_token: "expired-access-token" };
    kept.authorizeUrl = undefined;
    const later = new Client({ name: "sdk-assistant", version: "1.0.0" });
    await later.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    assert.equal((await call(later, "get_domain_posture", { domain_id: domainId })).data.name, domain);
    assert.notEqual(kept.tokens.access_token, "expired-access-token");
    assert.equal(kept.authorizeUrl, undefined, "no second consent");
    await later.close();
  } finally {
    await receiver.close();
  }
});

test("a person who denies the consent sends the app back to its loopback address with access_denied", async () => {
  const receiver = await redirectReceiver();
  try {
    const reg = await fetch(`${stack.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Unwanted App", redirect_uris: [receiver.uri], token_endpoint_auth_method: "none" }),
    });
    assert.equal(reg.status, 201);
    const { client_id } = await reg.json();
    const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
    const authorize = `${stack.url}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id,
      redirect_uri: receiver.uri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "deny-state",
    })}`;
    // Another person (sign-in links are limited per address and minute; the owner used theirs above).
    const { page, context } = await stack.person();
    await consent(page, authorize, "Unwanted App", /Read-only/, undefined, { email: `agent-denier-${stamp}@example.com`, decision: "Deny" });
    const callback = await receiver.received;
    assert.equal(callback.get("error"), "access_denied");
    assert.equal(callback.get("state"), "deny-state");
    assert.equal(callback.get("code"), null);
    await context.close();
  } finally {
    await receiver.close();
  }
});
