// The agent endpoint's front door (docs/decisions.md D40, D44): Cloudflare's workers-oauth-provider
// serves the OAuth 2.1 authorization server (RFC 8414 metadata, RFC 7591 registration, the token and
// revocation endpoints, authorization code with S256 PKCE) and the RFC 9728 protected-resource metadata,
// and guards /mcp. A team token (eam_...) is accepted on /mcp exactly as on REST through
// resolveExternalToken. Only the agent paths pass through the provider; /api/v1, /admin, /api/webhooks
// and the dashboard reach the Hono app untouched.
import { ExternalTokenError, getOAuthApi, OAuthProvider, type OAuthProviderOptions } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import { TOKEN_FAILURES_PER_MINUTE } from "../middleware/failure-gate";
import { createServices } from "../services";
import { tokenLabel } from "../services/audit/origin";
import { authenticateTeamToken } from "../services/teams/bearer";
import type { AgentCaller } from "./caller";
import { handleMcp } from "./handler";
import { guardRefresh } from "./refresh-reuse";
import { CLIENT_REGISTRATION_TTL_SECONDS, checkClientMetadata, guardRegistration } from "./registration-limits";

export const MCP_PATH = "/mcp";
export const AUTHORIZE_PATH = "/oauth/authorize";
const TOKEN_PATH = "/oauth/token";
const REGISTER_PATH = "/oauth/register";
export const GRANTS_PATH = "/settings/agents";
export const SCOPES = ["full", "read_only"] as const;
/** Short-lived access tokens; the refresh token (rotated on use) keeps a grant alive for 30 days of idleness (D44). */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
const REFRESH_IDLE_TTL_SECONDS = 30 * 24 * 3600;

const AGENT_PREFIXES = [MCP_PATH, "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource", "/oauth/", GRANTS_PATH];

/** Whether a path belongs to the agent endpoint or its OAuth server (the consent and grants pages need the provider's helpers). */
export const isAgentPath = (pathname: string) =>
  AGENT_PREFIXES.some((p) => pathname === p || pathname.startsWith(p.endsWith("/") ? p : `${p}/`) || pathname.startsWith(`${p}?`));

type Fetch = (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response>;

function providerOptions(origin: string, fallback: Fetch): OAuthProviderOptions<Env> {
  const resource = `${origin}${MCP_PATH}`;
  return {
    apiRoute: MCP_PATH,
    apiHandler: { fetch: (request, env, ctx) => handleMcp(request, env, (ctx as ExecutionContext<AgentCaller>).props) },
    defaultHandler: { fetch: (request, env, ctx) => fallback(request as Request, env, ctx) },
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    clientRegistrationTTL: CLIENT_REGISTRATION_TTL_SECONDS,
    clientRegistrationCallback: checkClientMetadata,
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_IDLE_TTL_SECONDS,
    refreshTokenIdleTTL: REFRESH_IDLE_TTL_SECONDS,
    scopesSupported: [...SCOPES],
    resourceMetadata: { resource, resource_name: "emailauth-monitor agent endpoint (MCP)" },
    resolveExternalToken: async ({ token, request, env }) => {
      const svc = createServices(env);
      const found = await authenticateTeamToken(svc, token);
      if (!found) {
        // The same failure budget per client as REST (docs/limits.md): a guessing client is slowed on both faces at once.
        const client = request.headers.get("cf-connecting-ip") ?? "unknown";
        const decision = await svc.rateLimiter.failure(`token:${client}`, TOKEN_FAILURES_PER_MINUTE);
        if (decision.blocked) {
          throw new ExternalTokenError("temporarily_unavailable", {
            description: "Too many failed authentications from this client; retry later.",
            statusCode: 429,
            headers: { "Retry-After": String(decision.retryAfterSeconds) },
          });
        }
        return null;
      }
      const caller: AgentCaller = { kind: "token", tokenId: found.token.id, scope: found.token.scope, team: found.team, label: tokenLabel(found.token) };
      return { props: caller, audience: resource };
    },
  };
}

interface Gate {
  provider: OAuthProvider<Env>;
  options: OAuthProviderOptions<Env>;
}

/**
 * The provider is configured with one canonical resource URL, so there is one per origin the Worker is
 * reached on (a token minted for one origin's /mcp is refused on another's, RFC 8707).
 */
export function createAgentGateway(fallback: Fetch) {
  const providers = new Map<string, Gate | null>();
  const providerFor = (origin: string) => {
    if (!providers.has(origin)) {
      if (providers.size > 16) providers.clear();
      let built: Gate | null = null;
      try {
        const options = providerOptions(origin, fallback);
        built = { provider: new OAuthProvider<Env>(options), options };
      } catch {
        // The provider refuses a resource on plain http unless the host is a loopback (RFC 8252 §8.3; OAuth 2.1 §1.5).
        built = null;
      }
      providers.set(origin, built);
    }
    return providers.get(origin) ?? null;
  };
  return async (request: Request, env: Env, ctx: ExecutionContext): Promise<Response> => {
    const gate = providerFor(new URL(request.url).origin);
    if (!gate) {
      return Response.json({ message: "The agent endpoint needs https (or a loopback host in development).", code: "not_found" }, { status: 404 });
    }
    // A per-request copy: the provider puts its helpers on env (OAUTH_PROVIDER) for the consent and
    // grants pages, and they must be this origin's, not the first origin an isolate saw.
    const pass = async (req: Request) => explainedNotFound(await gate.provider.fetch(req, { ...env }, ctx));
    const { pathname } = new URL(request.url);
    if (pathname === REGISTER_PATH) return guardRegistration(request, env, pass);
    if (pathname === TOKEN_PATH && request.method === "POST") {
      return guardRefresh(request, { env, helpers: () => getOAuthApi(gate.options, env), rememberSeconds: REFRESH_IDLE_TTL_SECONDS, pass });
    }
    return pass(rootMetadataAsMcp(request));
  };
}

const PRM_ROOT = "/.well-known/oauth-protected-resource";

/**
 * The origin has one protected resource, /mcp, whose metadata lives at PRM_ROOT + "/mcp" (RFC 9728
 * §3.1). Clients that look at the root first (or only) get the same document instead of a 404
 * (docs/decisions.md D46).
 */
function rootMetadataAsMcp(request: Request): Request {
  const url = new URL(request.url);
  if (url.pathname !== PRM_ROOT) return request;
  url.pathname = `${PRM_ROOT}${MCP_PATH}`;
  return new Request(url, request);
}

/** The provider answers some unknown agent paths with an empty 404; every 4xx carries a message and a code (D1). */
function explainedNotFound(response: Response): Response {
  if (response.status !== 404 || response.body !== null) return response;
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ message: "Not found.", code: "not_found" }), { status: 404, headers });
}
