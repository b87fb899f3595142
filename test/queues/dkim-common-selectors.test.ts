// The DKIM inventory finds a key at a common generic selector ("default", as cPanel, Plesk and OpenDKIM publish
// it) even when MX and SPF point at many providers whose own selectors come first: the scan is capped at 40
// names, so the common names are tried right after the inferred providers' (issue 29). Through the queue export.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, json, makeTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { addDomain, dkimRecord, markVerified, newDomainName, zoneFor } from "../support/monitoring";

describe("DKIM selector discovery", () => {
  it("finds a key at default._domainkey behind six inferred providers", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const providers = ["_spf.google.com", "spf.protection.outlook.com", "sendgrid.net", "servers.mcsv.net", "klaviyo.com", "mailgun.org"];
    const zone = zoneFor(name, { spf: `v=spf1 ${providers.map((p) => `include:${p}`).join(" ")} -all` });
    for (const p of providers) zone[p] ??= { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] };
    const key = await dkimRecord(name);
    zone[`default._domainkey.${name}`] = { TXT: [key.record] };
    installDohStub(zone);
    const body = { domain_id: added.id, check_id: `chk_dkim_default_${added.id}`, trigger: "manual" as const };
    const batch = createMessageBatch("emailauth-checks", [{ id: "m1", timestamp: new Date(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m1"]);
    const res = await call(`/api/v1/domains/${added.id}/dkim`, { token: team.readOnly });
    expect(res.status).toBe(200);
    const { data } = await json<{ data: { selectors: Array<{ selector: string; status: string }> } }>(res);
    expect(data.selectors.find((s) => s.selector === "default")).toMatchObject({ status: "active" });
  });
});
