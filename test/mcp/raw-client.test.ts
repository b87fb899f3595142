// A second, independent client: raw JSON-RPC 2.0 over fetch, written from the MCP specification
// (basic/transports: Streamable HTTP; basic/lifecycle: version negotiation), so nothing depends on
// the SDK client's behaviour. Also: malformed input is a JSON-RPC error with a 4xx, never a 500.
import { describe, expect, it } from "vitest";
import { makeTeam } from "../support/api";
import { addDomain } from "../support/monitoring";
import { MCP_URL, rawPost, workerFetch } from "./support";

type RpcResponse = { jsonrpc: "2.0"; id: number | string | null; result?: Record<string, any>; error?: { code: number; message: string } };

const initialize = (protocolVersion: string, id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-spec-client", version: "0.1" } },
});

async function rpc(token: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: RpcResponse; type: string | null }> {
  const res = await rawPost(body, { authorization: `Bearer ${token}`, ...headers });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as RpcResponse) : (null as never), type: res.headers.get("content-type") };
}

describe("raw JSON-RPC client", () => {
  it("negotiates the protocol version, lists and calls tools without any session", async () => {
    const team = await makeTeam();
    const domain = await addDomain(team);

    const init = await rpc(team.full, initialize("2025-06-18"));
    expect(init.status).toBe(200);
    expect(init.type).toContain("application/json");
    expect(init.body.result).toMatchObject({ protocolVersion: "2025-06-18", serverInfo: { name: "emailauth-monitor" }, capabilities: { tools: {} } });

    const newer = await rpc(team.full, initialize("2025-11-25"));
    expect(newer.body.result?.protocolVersion).toBe("2025-11-25");
    const unknown = await rpc(team.full, initialize("2099-01-01"));
    expect(unknown.body.result?.protocolVersion, "an unknown version gets the server's latest").toBe("2025-11-25");

    // Stateless: no session id is issued, and the next request needs none.
    const note = await rawPost({ jsonrpc: "2.0", method: "notifications/initialized" }, { authorization: `Bearer ${team.full}` });
    expect(note.status).toBe(202);
    const list = await rpc(team.full, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    const names = ((list.body.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["list_domains", "get_domain_posture", "delete_domain", "check_emails", "redeliver_webhook_delivery"]));

    const called = await rpc(team.full, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_domains", arguments: {} } });
    expect(called.body.id).toBe(3);
    expect(called.body.result?.isError).toBeFalsy();
    expect(called.body.result?.structuredContent.data.map((d: { id: number }) => d.id)).toEqual([domain.id]);
    expect(JSON.parse(called.body.result?.content[0].text).data[0].id).toBe(domain.id);
  });

  it("answers malformed or unknown requests with JSON-RPC errors and 4xx statuses, never a 500", async () => {
    const team = await makeTeam();
    const notJson = await rpc(team.full, "{not json");
    expect(notJson.status).toBe(400);
    expect(notJson.body.error?.code).toBe(-32700);

    const notRpc = await rpc(team.full, { hello: "world" });
    expect(notRpc.status).toBe(400);
    expect(notRpc.body.error?.code).toBeLessThan(-32000);

    const unknownMethod = await rpc(team.full, { jsonrpc: "2.0", id: 4, method: "does/not/exist" });
    expect(unknownMethod.body.error?.code).toBe(-32601);

    const unknownTool = await rpc(team.full, { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "no_such_tool", arguments: {} } });
    expect(unknownTool.status).toBeLessThan(500);
    expect(unknownTool.body.error?.code ?? (unknownTool.body.result?.isError ? -32602 : 0)).toBe(-32602);

    const wrongAccept = await workerFetch(MCP_URL, {
      method: "POST",
      headers: { authorization: `Bearer ${team.full}`, "content-type": "application/json", accept: "text/html" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/list" }),
    });
    expect(wrongAccept.status).toBe(406);

    const get = await workerFetch(MCP_URL, { headers: { authorization: `Bearer ${team.full}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});
