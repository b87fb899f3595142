// The list_dmarc_failures tool over MCP with the SDK client: the samples of a domain, paginated, for a
// full and a read-only token; bad input is a validation error; another team's domain is not found.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { insertFailure } from "../../src/services/failure-reports/store";
import { makeTeam } from "../support/api";
import { insertDomain } from "../support/factories";
import { callTool, connect, dataOf, errorOf } from "./support";

const sample = (ip: string) => ({
  reportingOrg: "r.example",
  arrivalDate: null,
  sourceIp: ip,
  authFailure: "dmarc",
  authResults: null,
  identityAlignment: "none",
  dkimDomain: null,
  dkimSelector: null,
  deliveryResult: "reject",
});

describe("list_dmarc_failures", () => {
  it("lists a domain's samples newest first, paginated, for a read-only token too; refuses bad input and another team's domain", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const svc = createServices(env);
    await insertFailure(svc, d.id, sample("198.51.100.1"), new Date(Date.now() - 60_000));
    await insertFailure(svc, d.id, sample("198.51.100.2"), new Date());
    for (const token of [team.full, team.readOnly]) {
      const client = await connect(token);
      const res = await callTool(client, "list_dmarc_failures", { domain_id: d.id, per_page: 1 });
      expect(dataOf<Array<{ source_ip: string }>>(res).map((s) => s.source_ip)).toEqual(["198.51.100.2"]);
      expect((res.structuredContent as { meta: unknown }).meta).toEqual({ current_page: 1, per_page: 1, total: 2, last_page: 2 });
      await client.close();
    }
    const client = await connect(team.full);
    const bad = await callTool(client, "list_dmarc_failures", { domain_id: d.id, per_page: 0 });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/validation/i);
    const stranger = await makeTeam();
    const other = await connect(stranger.full);
    expect(errorOf(await callTool(other, "list_dmarc_failures", { domain_id: d.id })).code).toBe("not_found");
    await client.close();
    await other.close();
  });
});
