// The list_audit_entries tool over MCP with the official SDK client: read-only annotations, a change made
// through another tool listed with its origin, filters and the cursor, the third-party text named as
// untrusted, a read-only token refused (owners and admins only, D233), another team's entries never seen.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { makeTeam } from "../support/api";
import { callTool, connect, dataOf, errorOf } from "./support";

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

interface Entry {
  seq: number;
  actor: { kind: string; label: string };
  face: string;
  verb: string;
  target: { type: string; id: string } | null;
  summary: string;
  hash: string | null;
}

describe("list_audit_entries", () => {
  it("lists the team's log newest first, with filters and a cursor", async () => {
    const team = await makeTeam();
    client = await connect(team.full);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "list_audit_entries");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tool?.description).toMatch(/untrusted/);

    const names = [`a-${crypto.randomUUID().slice(0, 8)}.com`, `b-${crypto.randomUUID().slice(0, 8)}.com`];
    for (const name of names) expect((await callTool(client, "add_domain", { name })).isError).toBeFalsy();

    const all = await callTool(client, "list_audit_entries", { verb: "domain.*" });
    const rows = dataOf<Entry[]>(all);
    expect(rows.map((e) => e.summary)).toEqual([`added ${names[1]}`, `added ${names[0]}`]);
    expect(rows[0]).toMatchObject({ verb: "domain.create", face: "agent", actor: { kind: "token" } });
    expect(rows[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
    // Third-party text travels as data; the prose says so.
    expect(JSON.stringify(all.content)).toMatch(/untrusted/);

    const first = await callTool(client, "list_audit_entries", { verb: "domain.create", limit: 1 });
    const next = (first.structuredContent as { meta: { next_before: number } }).meta.next_before;
    expect(dataOf<Entry[]>(first).map((e) => e.summary)).toEqual([`added ${names[1]}`]);
    const second = dataOf<Entry[]>(await callTool(client, "list_audit_entries", { verb: "domain.create", limit: 1, before: next }));
    expect(second.map((e) => e.summary)).toEqual([`added ${names[0]}`]);

    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect(dataOf<Entry[]>(await callTool(client, "list_audit_entries", { from: future }))).toEqual([]);
  });

  it("refuses a read-only token and bad input; another team's entries are never listed", async () => {
    const team = await makeTeam();
    client = await connect(team.full);
    await callTool(client, "add_domain", { name: `c-${crypto.randomUUID().slice(0, 8)}.com` });
    await client.close();

    client = await connect(team.readOnly);
    expect(errorOf(await callTool(client, "list_audit_entries")).code).toBe("forbidden");
    await client.close();

    const other = await makeTeam();
    client = await connect(other.full);
    expect(dataOf<Entry[]>(await callTool(client, "list_audit_entries", { verb: "domain.*" }))).toEqual([]);
    for (const args of [{ verb: "DROP TABLE" }, { limit: 0 }, { limit: 101 }, { from: "yesterday" }, { face: "fax" }]) {
      const res = await callTool(client, "list_audit_entries", args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.stringify(res.content)).toMatch(/validation/i);
    }
  });
});
