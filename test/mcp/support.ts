// MCP clients against the Worker's fetch export: the official SDK client (Client plus
// StreamableHTTPClientTransport) and a raw JSON-RPC-over-fetch client written from the spec.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { exports } from "cloudflare:workers";

export const ORIGIN = "https://api.test";
export const MCP_URL = `${ORIGIN}/mcp`;

export const workerFetch = (input: string | URL | Request, init?: RequestInit) => exports.default.fetch(new Request(input, init));

/** The SDK client over Streamable HTTP, authenticated with a bearer credential. */
export async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "emailauth-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured result of a successful call (fails the test on a tool error). */
export function dataOf<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return (result.structuredContent as { data: T }).data;
}

export function errorOf(result: CallToolResult): {
  code: string;
  message: string;
  retry_after_seconds?: number;
  errors?: Record<string, string[]>;
  request_id?: string;
} {
  if (!result.isError) throw new Error(`expected a tool error, got ${JSON.stringify(result.structuredContent)}`);
  return (result.structuredContent as { error: ReturnType<typeof errorOf> }).error;
}

/** One raw JSON-RPC POST, as the spec describes it (no SDK involved). */
export async function rawPost(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return workerFetch(MCP_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
