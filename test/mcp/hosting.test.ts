// The hosted MTA-STS tool over MCP with the official SDK client: read-only (a read-only token calls it),
// the hosting state, the two records with their live state and the enforce verdict; off when not hosted;
// another team's domain not found; bad input refused.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { call, makeTeam } from "../support/api";
import { installCloudflare } from "../support/cloudflare-api";
import { insertDomain } from "../support/factories";
import { callTool, connect, dataOf, errorOf } from "./support";

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

async function hosted() {
  const team = await makeTeam();
  const d = await insertDomain(team.id);
  installCloudflare({ [d.name]: { MX: [{ preference: 10, exchange: `mx.${d.name}` }] } });
  return { team, d };
}

describe("get_mta_sts_hosting", () => {
  it("is read-only and gives the policy served, the records with their live state and the enforce verdict", async () => {
    const { team, d } = await hosted();
    expect((await call(`/api/v1/domains/${d.id}/mta-sts-hosting`, { method: "PUT", token: team.full, body: {} })).status).toBe(201);
    client = await connect(team.readOnly);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "get_mta_sts_hosting");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });

    const result = await callTool(client, "get_mta_sts_hosting", { domain_id: d.id, days: 7 });
    const data = dataOf<{
      enabled: boolean;
      hosting: { state: string; mode: string; policy_text: string; policy_url: string };
      records: Array<{ name: string; type: string; live: { state: string } }>;
      enforce: { window_days: number; allowed: boolean };
    }>(result);
    expect(data.enabled).toBe(true);
    expect(data.hosting).toMatchObject({ state: "active", mode: "testing", policy_url: `https://mta-sts.${d.name}/.well-known/mta-sts.txt` });
    expect(data.hosting.policy_text).toBe(`version: STSv1\r\nmode: testing\r\nmx: mx.${d.name}\r\nmax_age: 604800\r\n`);
    expect(data.records.map((r) => [r.name, r.type, r.live.state])).toEqual([
      [`mta-sts.${d.name}`, "CNAME", "missing"],
      [`_mta-sts.${d.name}`, "CNAME", "missing"],
    ]);
    expect(data.enforce).toMatchObject({ window_days: 7, allowed: false });
    expect(JSON.stringify(result.content)).toMatch(/untrusted/);
  });

  it("says hosting is off for a domain not hosted, hides another team's domain, and refuses bad input", async () => {
    const { team, d } = await hosted();
    client = await connect(team.full);
    const off = dataOf<{ enabled: boolean; hosting: null }>(await callTool(client, "get_mta_sts_hosting", { domain_id: d.id }));
    expect(off).toMatchObject({ enabled: false, hosting: null });
    await client.close();

    const other = await makeTeam();
    client = await connect(other.full);
    expect(errorOf(await callTool(client, "get_mta_sts_hosting", { domain_id: d.id })).code).toBe("not_found");
    for (const args of [{}, { domain_id: "x" }, { domain_id: d.id, days: 0 }, { domain_id: d.id, days: 366 }]) {
      const res = await callTool(client, "get_mta_sts_hosting", args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.stringify(res.content)).toMatch(/validation/i);
    }
  });
});
