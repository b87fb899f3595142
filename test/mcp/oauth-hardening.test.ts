// The OAuth server's hardening through the Worker's real endpoints (docs/decisions.md D155, D156):
// a rotated refresh token that comes back revokes its grant, the previous token still serves a retry
// for a moment, and dynamic client registration is throttled per client address, capped in size and
// lapses when no token request renews it.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { REFRESH_RETRY_GRACE_SECONDS } from "../../src/mcp/refresh-reuse";
import { REGISTRATION_MAX_BYTES, REGISTRATIONS_PER_MINUTE } from "../../src/mcp/registration-limits";
import { Browser } from "../support/browser";
import { authorized, email, REDIRECT, token, type Tokens } from "../support/oauth-flow";

let nextIp = 0;
/** A browser with its own client address, so each test has its own registration budget. */
const browser = () => new Browser(`203.0.113.${++nextIp}`);

async function refresh(b: Browser, clientId: string, refreshToken: string): Promise<Response> {
  return token(b, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
}

async function rotated(b: Browser, clientId: string, refreshToken: string): Promise<Tokens> {
  const res = await refresh(b, clientId, refreshToken);
  expect(res.status).toBe(200);
  return (await res.json()) as Tokens;
}

/** tools/list on /mcp: 200 while the grant lives, 401 once its tokens are gone. */
async function mcpStatus(b: Browser, accessToken: string): Promise<number> {
  const res = await b.fetch("/mcp", {
    method: "POST",
    origin: null,
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await res.body?.cancel();
  return res.status;
}

async function expectReuseRefused(res: Response) {
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: "invalid_grant" });
}

describe("refresh token reuse (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2)", () => {
  it("a rotated token replayed after its successor was used revokes the grant: every token of it stops", async () => {
    const b = browser();
    await b.signIn(email());
    const { clientId, tokens: first } = await authorized(b);
    const second = await rotated(b, clientId, first.refresh_token);
    const third = await rotated(b, clientId, second.refresh_token);
    expect(await mcpStatus(b, third.access_token)).toBe(200);

    await expectReuseRefused(await refresh(b, clientId, first.refresh_token));
    await expectReuseRefused(await refresh(b, clientId, third.refresh_token));
    expect(await mcpStatus(b, third.access_token)).toBe(401);
    expect(await (await b.fetch("/settings/agents")).text()).not.toContain("Test Desktop");
  });

  it("the token just replaced is a retry for a moment; after the grace it is reuse and revokes", async () => {
    const b = browser();
    await b.signIn(email());
    const { clientId, tokens: first } = await authorized(b);
    const now = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now });
    await rotated(b, clientId, first.refresh_token); // its answer is "lost"
    vi.setSystemTime(now + (REFRESH_RETRY_GRACE_SECONDS - 5) * 1000);
    const retried = await rotated(b, clientId, first.refresh_token);
    const next = await rotated(b, clientId, retried.refresh_token);
    expect(await mcpStatus(b, next.access_token)).toBe(200);

    const { clientId: otherClient, tokens: other } = await authorized(b);
    const otherNext = await rotated(b, otherClient, other.refresh_token);
    vi.setSystemTime(now + (2 * REFRESH_RETRY_GRACE_SECONDS + 5) * 1000);
    // The previous token, unused successor and all, but past the grace: a replay, not a retry.
    await expectReuseRefused(await refresh(b, otherClient, other.refresh_token));
    await expectReuseRefused(await refresh(b, otherClient, otherNext.refresh_token));
    expect(await mcpStatus(b, otherNext.access_token)).toBe(401);
    // The first grant is untouched.
    expect((await refresh(b, clientId, next.refresh_token)).status).toBe(200);
  });

  it("a thief's replay within the grace is caught when the legitimate client presents its token", async () => {
    const b = browser();
    await b.signIn(email());
    const { clientId, tokens: stolen } = await authorized(b);
    const legitimate = await rotated(b, clientId, stolen.refresh_token);
    const thief = await rotated(b, clientId, stolen.refresh_token);
    await expectReuseRefused(await refresh(b, clientId, legitimate.refresh_token));
    expect(await mcpStatus(b, thief.access_token)).toBe(401);
    await expectReuseRefused(await refresh(b, clientId, thief.refresh_token));
  });

  it("a token the grant never issued is refused without revoking the grant", async () => {
    const b = browser();
    await b.signIn(email());
    const { clientId, tokens } = await authorized(b);
    const [userId, grantId] = tokens.refresh_token.split(":");
    const forged = await refresh(b, clientId, `${userId}:${grantId}:${"x".repeat(32)}`);
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: "invalid_grant" });
    expect(await mcpStatus(b, tokens.access_token)).toBe(200);
    expect((await refresh(b, clientId, tokens.refresh_token)).status).toBe(200);
  });
});

const registration = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    client_name: "Test Desktop",
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    ...over,
  });

async function register(b: Browser, body: string | ReadableStream<Uint8Array>): Promise<Response> {
  return b.fetch("/oauth/register", { method: "POST", origin: null, headers: { "content-type": "application/json" }, body });
}

describe("dynamic client registration limits (RFC 7591)", () => {
  it("accepts a name and redirect URIs at their caps and refuses them past it with the RFC 7591 §3.2.2 errors", async () => {
    const b = browser();
    const uri = (i: number, length = 40) => `https://client.example/${String(i).padEnd(length - 23, "a")}`;
    const atCaps = await register(
      b,
      registration({ client_name: "n".repeat(200), redirect_uris: [uri(0, 2_000), ...Array.from({ length: 9 }, (_, i) => uri(i + 1))] }),
    );
    expect(atCaps.status).toBe(201);
    await atCaps.body?.cancel();

    const refused: Array<[Record<string, unknown>, string]> = [
      [{ client_name: "n".repeat(201) }, "invalid_client_metadata"],
      [{ "client_name#fr": "n".repeat(201) }, "invalid_client_metadata"],
      [{ client_uri: `https://client.example/${"a".repeat(2_000)}` }, "invalid_client_metadata"],
      [{ redirect_uris: Array.from({ length: 11 }, (_, i) => uri(i)) }, "invalid_redirect_uri"],
      [{ redirect_uris: Array.from({ length: 500 }, (_, i) => uri(i)) }, "invalid_redirect_uri"],
      [{ redirect_uris: [uri(0, 2_001)] }, "invalid_redirect_uri"],
    ];
    for (const [over, error] of refused) {
      const res = await browser().fetch("/oauth/register", {
        method: "POST",
        origin: null,
        headers: { "content-type": "application/json" },
        body: registration(over),
      });
      expect(res.status, JSON.stringify(Object.keys(over))).toBe(400);
      expect(await res.json()).toMatchObject({ error });
    }
  });

  it("caps the whole body, declared or streamed, with 413: a 100,000-character name never reaches the provider", async () => {
    const hugeName = await register(browser(), registration({ client_name: "n".repeat(100_000) }));
    expect(hugeName.status).toBe(413);
    await hugeName.body?.cancel();
    const big = registration({ contacts: Array.from({ length: 40 }, (_, i) => `${i}${"c".repeat(1_000)}@example.com`) });
    expect(big.length).toBeGreaterThan(REGISTRATION_MAX_BYTES);
    const declared = await register(browser(), big);
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: "invalid_request" });
    const bytes = new TextEncoder().encode(big);
    const streamed = await register(
      browser(),
      new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 4_096) controller.enqueue(bytes.slice(at, at + 4_096));
          controller.close();
        },
      }),
    );
    expect(streamed.status).toBe(413);
  });

  it("throttles registrations per client address (CF-Connecting-IP), not for another address", async () => {
    const b = browser();
    for (let i = 0; i < REGISTRATIONS_PER_MINUTE; i++) {
      const res = await register(b, registration());
      expect(res.status).toBe(201);
      await res.body?.cancel();
    }
    const refused = await register(b, registration());
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable" });
    const other = await register(browser(), registration());
    expect(other.status).toBe(201);
  });

  it("a registration lapses 60 days after it was written unless a token request renews it", async () => {
    const res = await register(browser(), registration({ token_endpoint_auth_method: "client_secret_post" }));
    expect(res.status).toBe(201);
    const client = (await res.json()) as { client_id: string; client_id_issued_at: number; client_secret_expires_at: number };
    expect(client.client_secret_expires_at - client.client_id_issued_at).toBe(60 * 24 * 3600);
    const listed = await env.OAUTH_KV.list({ prefix: `client:${client.client_id}` });
    const expiration = listed.keys[0]?.expiration ?? 0;
    expect(Math.abs(expiration - (client.client_id_issued_at + 60 * 24 * 3600))).toBeLessThan(120);
  });
});
