// The plan's SPF flattening is watched (docs/decisions.md D173): a check offers flattened records for a
// record over the lookup limit; once the domain publishes them, later checks compare each flattened include
// with what its provider publishes, and a provider that adds a range raises a drift alert with the updated
// record. A failed lookup of the provider raises nothing. Every check runs through the exported queue handler.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, json, makeTeam } from "../support/api";
import { installDohStub, type StubZone } from "../support/doh-stub";
import { addDomain, alertsOf, markVerified, newDomainName, zoneFor } from "../support/monitoring";

let n = 0;
async function check(domainId: number) {
  const body = { domain_id: domainId, check_id: `chk_watch_${domainId}_${++n}`, trigger: "manual" as const };
  const batch = createMessageBatch("emailauth-checks", [{ id: `m-${body.check_id}`, timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([`m-${body.check_id}`]);
}

/** Eleven DNS-querying terms: ten provider includes and mx. */
function overLimit(name: string): StubZone {
  const zone = zoneFor(name, { spf: `v=spf1 ${Array.from({ length: 10 }, (_, i) => `include:_spf${i}.provider.test`).join(" ")} mx -all` });
  for (let i = 0; i < 10; i++) zone[`_spf${i}.provider.test`] = { TXT: [`v=spf1 ip4:198.18.${i}.0/24 -all`] };
  return zone;
}

interface Plan {
  steps: Array<{ id: string; records: Array<{ host: string; type: string; value: string }> }>;
}

async function planOf(team: { readOnly: string }, id: number): Promise<Plan> {
  const d = await json<{ data: { plan: Plan } }>(await call(`/api/v1/domains/${id}`, { token: team.readOnly }));
  return d.data.plan;
}

describe("watching flattened SPF includes", () => {
  it("offers flattening, watches it once published, and alerts with the updated record when a provider adds a range", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const zone = overLimit(name);
    installDohStub(zone);
    await check(added.id);
    const step = (await planOf(team, added.id)).steps.find((s) => s.id === "spf-limits");
    expect(step, "the plan flattens the record over the limit").toBeDefined();
    // The owner publishes the plan's records.
    for (const r of step?.records ?? []) zone[r.host] = { ...(zone[r.host] as object), TXT: [r.value] };
    await check(added.id);
    expect((await alertsOf(added.id)).filter((a) => a.subject.startsWith("spf.flattened:"))).toEqual([]);
    // A provider adds a range.
    const changed = Object.keys(zone).find((k) => k.endsWith(".provider.test") && !(step?.records[0]?.value ?? "").includes(`include:${k}`)) ?? "";
    const before = (zone[changed] as { TXT: string[] }).TXT[0] ?? "";
    zone[changed] = { TXT: [before.replace(" -all", " ip4:192.0.2.128/25 -all")] };
    await check(added.id);
    const alert = (await alertsOf(added.id)).find((a) => a.subject === `spf.flattened:${changed}`);
    expect(alert, "a drift alert names the provider").toMatchObject({ kind: "drift", severity: "High" });
    const row = await env.DB.prepare("SELECT body FROM alerts WHERE domain_id = ? AND subject = ?")
      .bind(added.id, `spf.flattened:${changed}`)
      .first<{ body: string }>();
    expect(row?.body, "the alert gives the updated record").toContain("ip4:192.0.2.128/25");
    expect(row?.body).toMatch(/^Your SPF record lists the addresses of .* this record at .*: v=spf1 /);
  });

  it("a provider lookup that fails raises nothing (unknown, never a change)", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const zone = overLimit(name);
    const stub = installDohStub(zone);
    await check(added.id);
    const step = (await planOf(team, added.id)).steps.find((s) => s.id === "spf-limits");
    for (const r of step?.records ?? []) zone[r.host] = { ...(zone[r.host] as object), TXT: [r.value] };
    await check(added.id);
    for (let i = 0; i < 10; i++) stub.setFault(`_spf${i}.provider.test`, "TXT", "servfail");
    await check(added.id);
    expect((await alertsOf(added.id)).filter((a) => a.subject.startsWith("spf.flattened:"))).toEqual([]);
  });
});
