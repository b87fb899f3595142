// Domain tools over MCP with the SDK client: happy paths, bad input, resources and prompts.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { makeTeam, type TestTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { captureChecks, newDomainName, zoneFor } from "../support/monitoring";
import { callTool, connect, dataOf, errorOf } from "./support";

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

async function open(team?: TestTeam) {
  const t = team ?? (await makeTeam());
  client = await connect(t.full);
  return { team: t, client };
}

type Added = { id: number; name: string; verified: boolean; verification: { host: string; value: string }; dmarc_report_address: string };

describe("domain tools", () => {
  it("adds, lists, verifies, checks, reads posture, history and diffs, then deletes a domain", async () => {
    const { client } = await open();
    const checks = captureChecks();
    const name = newDomainName();
    const added = dataOf<Added>(await callTool(client, "add_domain", { name }));
    expect(added).toMatchObject({ name, verified: false, verification: { host: `_emailauth-verify.${name}` } });
    expect(added.dmarc_report_address).toMatch(/@reports\.test$/);

    const listed = await callTool(client, "list_domains", { per_page: 10 });
    expect(dataOf<Array<{ id: number }>>(listed).map((d) => d.id)).toContain(added.id);
    expect((listed.structuredContent as { meta: { per_page: number } }).meta.per_page).toBe(10);

    installDohStub(zoneFor(name, { verifyValue: added.verification.value }));
    const verified = dataOf<{ verified: boolean; domain: { id: number; verified: boolean } }>(await callTool(client, "verify_domain", { domain_id: added.id }));
    expect(verified).toMatchObject({ verified: true, domain: { id: added.id, verified: true } });
    expect(checks.sent.length, "the first check is queued").toBeGreaterThanOrEqual(1);

    const queued = dataOf<{ check_id: string; status: string }>(await callTool(client, "check_domain", { domain_id: added.id }));
    expect(queued.status).toBe("queued");

    expect(dataOf<{ id: number; name: string }>(await callTool(client, "get_domain_posture", { domain_id: added.id }))).toMatchObject({ id: added.id, name });
    expect(dataOf(await callTool(client, "list_domain_checks", { domain_id: added.id }))).toEqual(expect.any(Array));
    expect(dataOf(await callTool(client, "list_domain_diffs", { domain_id: added.id, page: 1 }))).toEqual([]);

    expect(dataOf(await callTool(client, "delete_domain", { domain_id: added.id }))).toEqual({ deleted: true, domain_id: added.id });
    expect(errorOf(await callTool(client, "get_domain_posture", { domain_id: added.id })).code).toBe("not_found");
  });

  it("answers bad input with a tool error naming the field, never a server failure", async () => {
    const { client } = await open();
    const invalidName = errorOf(await callTool(client, "add_domain", { name: "not a domain!" }));
    expect(invalidName).toMatchObject({ code: "validation_failed", errors: { name: [expect.any(String)] } });
    for (const [name, args] of [
      ["add_domain", { name: 42 }],
      ["list_domains", { per_page: 500 }],
      ["get_domain_posture", { domain_id: "one" }],
      ["verify_domain", {}],
      ["check_domain", { domain_id: -1 }],
      ["delete_domain", { domain_id: 1.5 }],
      ["list_domain_checks", { domain_id: 1, page: 0 }],
      ["list_domain_diffs", { domain_id: 1, per_page: 0 }],
    ] as const) {
      const res = await callTool(client, name, args);
      expect(res.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(JSON.stringify(res.content)).toMatch(/validation/i);
    }
  });

  it("refuses a check of a pending domain with domain_not_verified", async () => {
    const { client } = await open();
    const added = dataOf<Added>(await callTool(client, "add_domain", { name: newDomainName() }));
    expect(errorOf(await callTool(client, "check_domain", { domain_id: added.id })).code).toBe("domain_not_verified");
  });

  it("reports a DNS failure during verification as dependency_unavailable, not as a missing record", async () => {
    const { client } = await open();
    const name = newDomainName();
    const added = dataOf<Added>(await callTool(client, "add_domain", { name }));
    const stub = installDohStub(zoneFor(name, { verifyValue: added.verification.value }));
    stub.setFault(`_emailauth-verify.${name}`, "TXT", "servfail");
    expect(errorOf(await callTool(client, "verify_domain", { domain_id: added.id })).code).toBe("dependency_unavailable");
  });
});

describe("resources and prompts", () => {
  it("lists and reads a domain's posture and DMARC summary", async () => {
    const { client } = await open();
    const added = dataOf<Added>(await callTool(client, "add_domain", { name: newDomainName() }));
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain(`emailauth://domains/${added.id}/posture`);
    expect(uris).toContain(`emailauth://domains/${added.id}/dmarc`);

    const posture = await client.readResource({ uri: `emailauth://domains/${added.id}/posture` });
    expect(JSON.parse(String((posture.contents[0] as { text: string }).text))).toMatchObject({ id: added.id, name: added.name });
    const dmarc = await client.readResource({ uri: `emailauth://domains/${added.id}/dmarc` });
    expect(JSON.parse(String((dmarc.contents[0] as { text: string }).text))).toMatchObject({ domain: { id: added.id }, window: { days: 30 } });
    await expect(client.readResource({ uri: "emailauth://domains/999999999/posture" })).rejects.toThrow(/not found/i);
  });

  it("offers the audit prompt naming the domain and the tools to use", async () => {
    const { client } = await open();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["audit_domain", "plan_dmarc_enforcement"]));
    const prompt = await client.getPrompt({ name: "audit_domain", arguments: { domain: "example.com" } });
    const text = prompt.messages[0]?.content.type === "text" ? prompt.messages[0].content.text : "";
    expect(text).toContain("example.com");
    expect(text).toContain("get_domain_posture");
  });
});
