// OAuth for interactive agents, end to end through the Worker: discovery (RFC 8414, RFC 9728), dynamic
// registration (RFC 7591), authorization code with S256 PKCE through the signed-in dashboard consent
// page, token, a tool call with the SDK client, refresh, revocation from /settings/agents, then refused.
import { describe, expect, it } from "vitest";
import { unique } from "../support/api";
import { Browser, ORIGIN } from "../support/browser";
import { consent, email, MCP, mcpClient, pkce, REDIRECT, register, token } from "../support/oauth-flow";
import { callTool, dataOf, errorOf } from "./support";

describe("OAuth discovery", () => {
  it("publishes authorization-server and protected-resource metadata", async () => {
    const b = new Browser();
    const as = (await (await b.fetch("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      scopes_supported: ["full", "read_only"],
    });
    const pr = (await (await b.fetch("/.well-known/oauth-protected-resource/mcp")).json()) as Record<string, unknown>;
    expect(pr).toMatchObject({ resource: MCP, authorization_servers: [ORIGIN] });
  });

  it("answers the root protected-resource path with the /mcp document, and an unknown one with a JSON 404", async () => {
    const b = new Browser();
    const root = await b.fetch("/.well-known/oauth-protected-resource");
    expect(root.status).toBe(200);
    expect(await root.json()).toMatchObject({ resource: MCP, authorization_servers: [ORIGIN] });
    const other = await b.fetch("/.well-known/oauth-protected-resource/elsewhere");
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ message: "Not found.", code: "not_found" });
  });
});

describe("OAuth flow", () => {
  it("registers, authorizes with PKCE through the signed-in consent page, calls a tool, refreshes, is revoked and refused", async () => {
    const b = new Browser();
    await b.signIn(email());
    const clientId = await register(b);
    const { verifier, challenge } = await pkce();
    const form = await consent(b, clientId, challenge);

    const approved = await b.fetch("/oauth/authorize", {
      method: "POST",
      form: { _csrf: form.csrf, handle: form.handle, team_id: form.teamId, scope: "full", decision: "approve" },
    });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("st-1");
    const code = back.searchParams.get("code") ?? "";

    const wrongVerifier = await token(b, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: "x".repeat(43),
    });
    expect(wrongVerifier.status).toBe(400);
    const codeAfterFailure = await consent(b, clientId, challenge);
    const again = await b.fetch("/oauth/authorize", {
      method: "POST",
      form: { _csrf: codeAfterFailure.csrf, handle: codeAfterFailure.handle, team_id: codeAfterFailure.teamId, scope: "full", decision: "approve" },
    });
    const code2 = new URL(again.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const issued = await token(b, {
      grant_type: "authorization_code",
      code: code2,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: MCP,
    });
    expect(issued.status).toBe(200);
    const tokens = (await issued.json()) as { access_token: string; refresh_token: string; expires_in: number; scope: string };
    expect(tokens.expires_in).toBe(900);
    expect(tokens.scope).toBe("full");

    const client = await mcpClient(tokens.access_token);
    const added = dataOf<{ id: number; name: string }>(await callTool(client, "add_domain", { name: `${unique("oauth").toLowerCase()}.example` }));
    expect(dataOf<Array<{ id: number }>>(await callTool(client, "list_domains")).map((d) => d.id)).toEqual([added.id]);
    await client.close();

    const refreshed = await token(b, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { access_token: string };
    const client2 = await mcpClient(next.access_token);
    expect(dataOf<Array<{ id: number }>>(await callTool(client2, "list_domains")).map((d) => d.id)).toEqual([added.id]);
    await client2.close();

    const agentsPage = await (await b.fetch("/settings/agents")).text();
    expect(agentsPage).toContain("Test Desktop");
    expect(agentsPage).toContain(MCP);
    const grantId = /action="\/settings\/agents\/([^"/]+)\/revoke"/.exec(agentsPage)?.[1];
    if (!grantId) throw new Error("no grant listed");
    expect((await b.post(`/settings/agents/${grantId}/revoke`, {}, "/settings/agents")).status).toBe(303);
    expect(await (await b.fetch("/settings/agents")).text()).not.toContain("Test Desktop");

    const refused = await b.fetch("/mcp", {
      method: "POST",
      origin: null,
      headers: { authorization: `Bearer ${next.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(401);
    expect((await token(b, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId })).status).toBe(400);
  });

  it("grants read-only when asked: write tools are refused with a tool error", async () => {
    const b = new Browser();
    await b.signIn(email());
    const clientId = await register(b);
    const { verifier, challenge } = await pkce();
    const form = await consent(b, clientId, challenge, "read_only");
    const approved = await b.fetch("/oauth/authorize", {
      method: "POST",
      form: { _csrf: form.csrf, handle: form.handle, team_id: form.teamId, scope: "read_only", decision: "approve" },
    });
    const code = new URL(approved.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const tokens = (await (
      await token(b, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier })
    ).json()) as {
      access_token: string;
    };
    const client = await mcpClient(tokens.access_token);
    expect(dataOf(await callTool(client, "list_domains"))).toEqual([]);
    expect(errorOf(await callTool(client, "add_domain", { name: "example.org" })).code).toBe("forbidden");
    await client.close();
  });

  it("refuses an authorization without PKCE, a cross-site consent post, and a denied consent returns access_denied", async () => {
    const b = new Browser();
    await b.signIn(email());
    const clientId = await register(b);
    const noPkce = await b.fetch(`/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "s" })}`);
    expect(noPkce.status).toBe(302);
    expect(new URL(noPkce.headers.get("location") ?? "").searchParams.get("error")).toBe("invalid_request");

    const { challenge } = await pkce();
    const form = await consent(b, clientId, challenge);
    const crossSite = await b.fetch("/oauth/authorize", {
      method: "POST",
      origin: "https://evil.example",
      form: { _csrf: form.csrf, handle: form.handle, team_id: form.teamId, scope: "full", decision: "approve" },
    });
    expect(crossSite.status).toBe(403);
    const denied = await b.fetch("/oauth/authorize", {
      method: "POST",
      form: { _csrf: form.csrf, handle: form.handle, team_id: form.teamId, decision: "deny" },
    });
    expect(denied.status).toBe(302);
    expect(new URL(denied.headers.get("location") ?? "").searchParams.get("error")).toBe("access_denied");
  });

  it("sends a signed-out user to sign in first and back to the consent page", async () => {
    const b = new Browser();
    const clientId = await register(b);
    const { challenge } = await pkce();
    const q = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s",
    });
    const res = await b.fetch(`/oauth/authorize?${q}`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent(`/oauth/authorize?${q}`)}`);
  });
});
