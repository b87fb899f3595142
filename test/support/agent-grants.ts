// An agent allowed on a team the way a desktop assistant does it (docs/decisions.md D44, D45), through the
// Worker's fetch export: RFC 7591 registration, the signed-in consent page with S256 PKCE, the code
// exchanged for tokens. Then /mcp with the access token and a refresh, to tell a live grant from a revoked one.
import { exports } from "cloudflare:workers";
import type { Browser } from "./browser";

const REDIRECT = "http://127.0.0.1:33418/callback";
const MCP = "https://app.test/mcp";

const b64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

export interface AgentTokens {
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

/** The signed-in browser's member allows a new agent on their current team with `scope`; returns its tokens. */
export async function allowAgent(b: Browser, scope: "full" | "read_only" = "full"): Promise<AgentTokens> {
  const registered = await b.fetch("/oauth/register", {
    method: "POST",
    origin: null,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Grant Test Agent",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.status}`);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    scope,
    resource: MCP,
  });
  const html = await (await b.fetch(`/oauth/authorize?${q}`)).text();
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="_csrf" value="([0-9A-Za-z]{32})"/.exec(html)?.[1];
  const teamId = /<option value="(\d+)" selected/.exec(html)?.[1];
  if (!handle || !csrf || !teamId) throw new Error("consent page lacks its form");
  const approved = await b.fetch("/oauth/authorize", { method: "POST", form: { _csrf: csrf, handle, team_id: teamId, scope, decision: "approve" } });
  const code = new URL(approved.headers.get("location") ?? "").searchParams.get("code");
  if (!code) throw new Error(`consent did not redirect with a code: ${approved.status}`);
  const issued = await b.fetch("/oauth/token", {
    method: "POST",
    origin: null,
    form: { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: MCP },
  });
  if (issued.status !== 200) throw new Error(`token exchange failed: ${issued.status}`);
  const tokens = (await issued.json()) as { access_token: string; refresh_token: string };
  return { clientId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

/** One tools/list on /mcp with the agent's access token: 200 while the grant lives, 401 once it is refused. */
export async function agentStatus(accessToken: string): Promise<number> {
  const res = await exports.default.fetch(
    new Request(MCP, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );
  await res.body?.cancel();
  return res.status;
}

/** Whether the grant's refresh token still works (a revoked grant's tokens are deleted with it). */
export async function refreshes(b: Browser, agent: AgentTokens): Promise<boolean> {
  const res = await b.fetch("/oauth/token", {
    method: "POST",
    origin: null,
    form: { grant_type: "refresh_token", refresh_token: agent.refreshToken, client_id: agent.clientId },
  });
  if (res.status === 200) {
    agent.refreshToken = ((await res.json()) as { refresh_token: string }).refresh_token;
    return true;
  }
  await res.body?.cancel();
  return false;
}
