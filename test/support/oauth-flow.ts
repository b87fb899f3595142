// The OAuth steps of an interactive agent against the Worker (dynamic registration, PKCE, the
// signed-in consent page, the token endpoint, the SDK client with the access token), shared by the
// OAuth tests.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { unique } from "./api";
import { type Browser, ORIGIN } from "./browser";

export const MCP = `${ORIGIN}/mcp`;
export const REDIRECT = "http://127.0.0.1:33418/callback";
export const email = () => `${unique("agent").toLowerCase()}@example.com`;

const b64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

export async function pkce() {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge };
}

export async function register(b: Browser): Promise<string> {
  const res = await b.fetch("/oauth/register", {
    method: "POST",
    origin: null,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test Desktop",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

export async function token(b: Browser, form: Record<string, string>): Promise<Response> {
  return b.fetch("/oauth/token", { method: "POST", origin: null, form });
}

export async function consent(b: Browser, clientId: string, challenge: string, scope = "full") {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st-1",
    scope,
    resource: MCP,
  });
  const page = await b.fetch(`/oauth/authorize?${q}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain("Test Desktop");
  expect(page.headers.get("content-security-policy")).toContain("form-action 'self' http://127.0.0.1:33418");
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="_csrf" value="([0-9A-Za-z]{32})"/.exec(html)?.[1];
  const teamId = /<option value="(\d+)" selected/.exec(html)?.[1];
  if (!handle || !csrf || !teamId) throw new Error("consent page lacks its form");
  return { handle, csrf, teamId };
}

export async function mcpClient(accessToken: string): Promise<Client> {
  const { exports } = await import("cloudflare:workers");
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP), {
      fetch: (input, init) => exports.default.fetch(new Request(input, init)),
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
}

/** A signed-in user's consent for a newly registered client, exchanged for tokens. */
export async function authorized(b: Browser, scope = "full"): Promise<{ clientId: string; tokens: Tokens }> {
  const clientId = await register(b);
  const { verifier, challenge } = await pkce();
  const form = await consent(b, clientId, challenge, scope);
  const approved = await b.fetch("/oauth/authorize", {
    method: "POST",
    form: { _csrf: form.csrf, handle: form.handle, team_id: form.teamId, scope, decision: "approve" },
  });
  const code = new URL(approved.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const issued = await token(b, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
  expect(issued.status).toBe(200);
  return { clientId, tokens: (await issued.json()) as Tokens };
}
