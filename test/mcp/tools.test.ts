// DKIM, DMARC, alert, intel and webhook tools over MCP with the SDK client: each on its happy path and on bad input.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signMessage } from "../../src/core/dkim/sign";
import { createServices } from "../../src/services";
import { openAlertKeys, upsertAlerts } from "../../src/services/alerts/raise";
import { call, makeTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { MESSAGE } from "../support/dkim-tools";
import { acmeZone, allDown, policyServer } from "../support/intel-zone";
import { addDomain, newDomainName, zoneFor } from "../support/monitoring";
import { createWebhook, installReceiver } from "../support/webhooks";
import { callTool, connect, dataOf, errorOf } from "./support";

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

async function open() {
  const team = await makeTeam();
  client = await connect(team.full);
  return { team, client };
}

async function expectInvalid(c: Client, name: string, args: Record<string, unknown>) {
  const res = await callTool(c, name, args);
  expect(res.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
  expect(JSON.stringify(res.content)).toMatch(/validation/i);
}

describe("DKIM tools", () => {
  it("generates a key, finds it live, verifies a message signed with it, and shows the inventory", async () => {
    const { team, client } = await open();
    const name = newDomainName();
    const key = dataOf<{ dns: { host: string; value: string }; private_key_pem: string; algorithm: string }>(
      await callTool(client, "generate_dkim_key", { domain: name, selector: "s1", algorithm: "ed25519" }),
    );
    expect(key).toMatchObject({ algorithm: "ed25519", dns: { host: `s1._domainkey.${name}` } });
    installDohStub({ ...zoneFor(name), [key.dns.host]: { TXT: [key.dns.value] } });

    const found = dataOf<{ status: string; selectors: Record<string, { host: string }> }>(
      await callTool(client, "lookup_dkim", { domain: name, selector: "s1" }),
    );
    expect(found.status).toBe("found");
    expect(found.selectors.s1?.host).toBe(key.dns.host);

    const signed = await signMessage(MESSAGE, { domain: name, selector: "s1", privateKey: key.private_key_pem, algorithm: "ed25519-sha256" });
    if (!signed.ok) throw new Error(signed.error);
    const verified = dataOf<{ signatures: Array<{ result: string; domain: string }> }>(
      await callTool(client, "verify_dkim_message", { message: signed.value }),
    );
    expect(verified.signatures).toEqual([expect.objectContaining({ result: "pass", domain: name })]);

    const domain = await addDomain(team, name);
    const added = await call(`/api/v1/domains/${domain.id}/dkim/selectors`, { method: "POST", token: team.full, body: { selector: "s1" } });
    expect(added.status).toBe(201);
    const overview = dataOf<{ selectors: Array<{ selector: string }> }>(await callTool(client, "get_dkim_overview", { domain_id: domain.id, days: 7 }));
    expect(overview.selectors.map((s) => s.selector)).toContain("s1");
    expect(dataOf<{ selector: string }>(await callTool(client, "get_dkim_selector", { domain_id: domain.id, selector: "s1" }))).toMatchObject({
      selector: "s1",
    });
    expect(errorOf(await callTool(client, "get_dkim_selector", { domain_id: domain.id, selector: "nope" })).code).toBe("not_found");
  });

  it("refuses bad input", async () => {
    const { client } = await open();
    await expectInvalid(client, "generate_dkim_key", { domain: "example.com", selector: "s1", algorithm: "rsa-512" });
    await expectInvalid(client, "lookup_dkim", { selector: "s1" });
    await expectInvalid(client, "verify_dkim_message", { message: "" });
    await expectInvalid(client, "get_dkim_overview", { domain_id: 1, days: 366 });
    await expectInvalid(client, "get_dkim_selector", { domain_id: 1, selector: "" });
    expect(errorOf(await callTool(client, "lookup_dkim", { domain: "bad domain" })).code).toBe("validation_failed");
  });
});

describe("DMARC and alert tools", () => {
  it("summarizes DMARC reports and lists and resolves alerts", async () => {
    const { team, client } = await open();
    const domain = await addDomain(team);
    const summary = dataOf<{ domain: { id: number }; window: { days: number }; summary: { reports: number } }>(
      await callTool(client, "get_dmarc_summary", { domain_id: domain.id, days: 14 }),
    );
    expect(summary).toMatchObject({ domain: { id: domain.id }, window: { days: 14 }, summary: { reports: 0 } });

    const db = createServices(env).db;
    const u = upsertAlerts(
      db,
      [{ teamId: team.id, domain, kind: "drift", subject: "dmarc.p", severity: "High", title: "DMARC p changed", body: null }],
      new Date(),
      await openAlertKeys(db, team.id, domain.id),
    );
    await db.batch(u.statements as [(typeof u.statements)[number], ...typeof u.statements]);

    const openAlerts = dataOf<Array<{ id: number; subject: string; resolved_at: string | null }>>(await callTool(client, "list_alerts", { open: true }));
    expect(openAlerts).toEqual([expect.objectContaining({ subject: "dmarc.p", resolved_at: null })]);
    const resolved = dataOf<{ resolved_at: string | null }>(await callTool(client, "resolve_alert", { alert_id: openAlerts[0]!.id }));
    expect(resolved.resolved_at).toEqual(expect.any(String));
    expect(dataOf(await callTool(client, "list_alerts", { open: true }))).toEqual([]);
  });

  it("refuses bad input and unknown ids", async () => {
    const { client } = await open();
    await expectInvalid(client, "get_dmarc_summary", { domain_id: 1, days: 0 });
    await expectInvalid(client, "list_alerts", { open: "yes" });
    await expectInvalid(client, "resolve_alert", { alert_id: "x" });
    expect(errorOf(await callTool(client, "resolve_alert", { alert_id: 999_999_999 })).code).toBe("not_found");
    expect(errorOf(await callTool(client, "get_dmarc_summary", { domain_id: 999_999_999 })).code).toBe("not_found");
  });
});

describe("intel tools", () => {
  it("checks any domain live and addresses one by one or in a batch", async () => {
    const { client } = await open();
    installDohStub(acmeZone, { passthrough: policyServer });
    const summary = dataOf<{ view: string; domain: string }>(await callTool(client, "check_domain_intel", { domain: "acme.example" }));
    expect(summary).toMatchObject({ view: "summary", domain: "acme.example" });
    expect(dataOf<{ view: string }>(await callTool(client, "check_domain_intel", { domain: "acme.example", full: true })).view).toBe("full");
    expect(dataOf<{ email: string; valid_syntax: boolean }>(await callTool(client, "check_email", { email: "jane@acme.example" }))).toMatchObject({
      email: "jane@acme.example",
      valid_syntax: true,
    });
    const batch = dataOf<{ count: number; results: Array<{ email: string }> }>(
      await callTool(client, "check_emails", { emails: ["a@acme.example", "not-an-address"] }),
    );
    expect(batch.count).toBe(2);
    expect(batch.results.map((r) => r.email)).toEqual(["a@acme.example", "not-an-address"]);
  });

  it("refuses bad input, and a DNS outage is dependency_unavailable", async () => {
    const { client } = await open();
    await expectInvalid(client, "check_domain_intel", { domain: "" });
    await expectInvalid(client, "check_email", {});
    await expectInvalid(client, "check_emails", { emails: [] });
    await expectInvalid(client, "check_emails", { emails: Array.from({ length: 101 }, (_, i) => `u${i}@acme.example`) });
    const down = vi.spyOn(globalThis, "fetch").mockImplementation(allDown);
    try {
      expect(errorOf(await callTool(client, "check_domain_intel", { domain: "acme.example" })).code).toBe("dependency_unavailable");
      expect(errorOf(await callTool(client, "check_email", { email: "jane@acme.example" })).code).toBe("dependency_unavailable");
    } finally {
      down.mockRestore();
    }
  });
});

describe("webhook tools", () => {
  it("lists endpoints, sends a test, lists deliveries and redelivers", async () => {
    const r = installReceiver();
    const { team, client } = await open();
    const hook = await createWebhook(team.full, { events: ["domain.created"] });
    const listed = await callTool(client, "list_webhooks", {});
    expect(dataOf<Array<{ id: number }>>(listed).map((h) => h.id)).toEqual([hook.id]);
    expect((listed.structuredContent as { meta: { limit: number } }).meta.limit).toBe(25);

    const sent = dataOf<{ id: number; event: string; status: string }>(await callTool(client, "test_webhook", { webhook_id: hook.id }));
    expect(sent).toMatchObject({ event: "webhook.test", status: "delivered" });
    const deliveries = dataOf<Array<{ id: number }>>(await callTool(client, "list_webhook_deliveries", { webhook_id: hook.id, status: "delivered" }));
    expect(deliveries.map((d) => d.id)).toEqual([sent.id]);
    const again = dataOf<{ id: number; attempts: number }>(await callTool(client, "redeliver_webhook_delivery", { webhook_id: hook.id, delivery_id: sent.id }));
    expect(again).toMatchObject({ id: sent.id, attempts: 2 });
    expect(r.received.filter((x) => x.url.startsWith("https://hooks.example.com/"))).toHaveLength(2);
  });

  it("refuses bad input and unknown ids", async () => {
    const { client } = await open();
    await expectInvalid(client, "list_webhook_deliveries", { webhook_id: 1, status: "lost" });
    await expectInvalid(client, "test_webhook", {});
    await expectInvalid(client, "redeliver_webhook_delivery", { webhook_id: 1 });
    expect(errorOf(await callTool(client, "test_webhook", { webhook_id: 999_999_999 })).code).toBe("not_found");
    expect(errorOf(await callTool(client, "list_webhook_deliveries", { webhook_id: 999_999_999 })).code).toBe("not_found");
  });
});
