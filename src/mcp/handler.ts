// POST /mcp: MCP over Streamable HTTP, stateless (docs/decisions.md D40). The OAuth provider has
// already authenticated the bearer credential (an OAuth access token or a team token) and hands the
// caller's props here; this builds the ServiceContext and answers one JSON-RPC message or batch.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Env } from "../env";
import { createServices } from "../services";
import { type AgentCaller, resolveCaller } from "./caller";
import { buildServer } from "./server";

/** A DKIM message may be 1 MB and JSON escaping can triple it (the REST route allows the same, D2). */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });

export async function handleMcp(request: Request, env: Env, props: AgentCaller): Promise<Response> {
  const requestId = crypto.randomUUID();
  // Stateless: there is no session to resume (GET stream) or end (DELETE); MCP says answer 405.
  if (request.method !== "POST") return jsonRpcError(405, -32000, "Method not allowed: this endpoint is stateless; POST JSON-RPC messages.", { Allow: "POST" });
  try {
    const svc = createServices(env);
    const call = await resolveCaller(svc, props, requestId, request.headers);
    if (!call) {
      return jsonRpcError(401, -32001, "The grant's user is no longer a member of its team.", { "WWW-Authenticate": 'Bearer error="invalid_token"' });
    }
    const server = buildServer(call);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    const headers = new Headers(response.headers);
    headers.set("cache-control", "no-store");
    headers.set("x-request-id", requestId);
    return new Response(response.body, { status: response.status, headers });
  } catch (error) {
    console.error(JSON.stringify({ level: "error", requestId, face: "mcp", error: String(error), stack: error instanceof Error ? error.stack : undefined }));
    // As REST's 500 (D1, D158): the generic message; the request id finds the log line above.
    return jsonRpcError(500, -32603, "Internal error.", { "x-request-id": requestId });
  }
}
