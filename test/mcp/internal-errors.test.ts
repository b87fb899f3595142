// An agent tool's unexpected failure answers as REST's 500 does (docs/decisions.md D1, D158): a tool
// error with the generic message and the request id; the exception's text only in the log, under the
// same request id. Through the official SDK client, with D1 made to fail at the edge.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { unique } from "../support/api";
import { makeTeam } from "../support/api";
import { Browser } from "../support/browser";
import { insertDomain } from "../support/factories";
import { authorized, email } from "../support/oauth-flow";
import { callTool, connect, errorOf } from "./support";

const SECRET = "D1_ERROR: credentials sk_live_51HxTESTsecret for db-primary.internal:5432";

/** The error log lines written while `run` ran, parsed. */
async function loggedDuring(run: () => Promise<void>): Promise<Array<{ requestId?: string; error?: string; face?: string }>> {
  const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    await run();
    return spy.mock.calls.map((args) => {
      try {
        return JSON.parse(String(args[0]));
      } catch {
        return {};
      }
    });
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe("an unexpected failure inside an agent tool", () => {
  it("answers isError with the generic message and the request id, never the exception's text, which goes to the log", async () => {
    const team = await makeTeam();
    const client = await connect(team.full);
    let result: Awaited<ReturnType<typeof callTool>> | undefined;
    const logged = await loggedDuring(async () => {
      vi.spyOn(env.DB, "batch").mockRejectedValue(new Error(SECRET));
      result = await callTool(client, "add_domain", { name: `${unique("boom").toLowerCase()}.example` });
      vi.mocked(env.DB.batch).mockRestore();
    });
    if (!result) throw new Error("no result");
    expect(result.isError).toBe(true);
    const error = errorOf(result);
    expect(error).toMatchObject({ code: "internal_error", message: "Internal error." });
    expect(error.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(result)).not.toContain("sk_live");
    expect(JSON.stringify(result.content)).toContain(`Request id: ${error.request_id}.`);
    const line = logged.find((l) => l.error?.includes("sk_live"));
    expect(line).toMatchObject({ face: "mcp", requestId: error.request_id });
    await client.close();
  });

  it("a resource read that fails unexpectedly is a JSON-RPC error with the generic message", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const client = await connect(team.full);
    await client.listTools(); // the token is verified (and cached) before D1 breaks
    const logged = await loggedDuring(async () => {
      vi.spyOn(env.DB, "prepare").mockImplementation(() => {
        throw new Error(SECRET);
      });
      const read = client.readResource({ uri: `emailauth://domains/${d.id}/posture` });
      await expect(read).rejects.toThrow(/Internal error\./);
      await read.catch((e: unknown) => expect(String(e)).not.toContain("sk_live"));
      vi.mocked(env.DB.prepare).mockRestore();
    });
    expect(logged.some((l) => l.error?.includes("sk_live"))).toBe(true);
    await client.close();
  });

  it("a failure before any tool runs (an OAuth caller's membership unreadable) is a 500 with the generic message and the request id", async () => {
    const b = new Browser();
    await b.signIn(email());
    const { tokens } = await authorized(b);
    let res: Response | undefined;
    const logged = await loggedDuring(async () => {
      vi.spyOn(env.DB, "prepare").mockImplementation(() => {
        throw new Error(SECRET);
      });
      res = await b.fetch("/mcp", {
        method: "POST",
        origin: null,
        headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      vi.mocked(env.DB.prepare).mockRestore();
    });
    if (!res) throw new Error("no response");
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(JSON.parse(body)).toMatchObject({ error: { code: -32603, message: "Internal error." } });
    expect(body).not.toContain("sk_live");
    const requestId = res.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(logged.find((l) => l.error?.includes("sk_live"))).toMatchObject({ face: "mcp", requestId });
  });

  it("an expected failure still carries its own code and message (not_found for another team's domain)", async () => {
    const owner = await makeTeam();
    const d = await insertDomain(owner.id);
    const stranger = await makeTeam();
    const client = await connect(stranger.full);
    const error = errorOf(await callTool(client, "get_domain_posture", { domain_id: d.id }));
    expect(error.code).toBe("not_found");
    expect(error.request_id).toBeUndefined();
    await client.close();
  });
});
