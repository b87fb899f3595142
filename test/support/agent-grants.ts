// An agent allowed on a team the way a desktop assistant does it (docs/decisions.md D44, D45), through the
// Worker's fetch export: RFC 7591 registration, the signed-in consent page with S256 PKCE, the code
// exchanged for tokens. Then /mcp with the access token and a refresh, to tell a live grant from a revoked one.
import { exports } from "cloudflare:workers";
import type { Browser } from "./browser";
import { consent, MCP, pkce, REDIRECT, register, token } from "./oauth-flow";

export interface AgentTokens {
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

/** The signed-in browser's member allows a new agent on their current team with `scope`; returns its tokens. */
export async function allowAgent(b: Browser, scope: "full" | "read_only" = "full"): Promise<AgentTokens> {
  const clientId = await register(b);
  const { verifier, challenge } = await pkce();
  const { handle, csrf, teamId } = await consent(b, clientId, challenge, scope);
  const approved = await b.fetch("/oauth/authorize", { method: "POST", form: { _csrf: csrf, handle, team_id: teamId, scope, decision: "approve" } });
  const code = new URL(approved.headers.get("location") ?? "").searchParams.get("code");
  if (!code) throw new Error(`consent did not redirect with a code: ${approved.status}`);
  const issued = await token(b, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: MCP,
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
