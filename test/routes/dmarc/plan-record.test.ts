// One DMARC record on every face (issue 29): the DMARC view's suggested record is the remediation plan's DMARC
// record, the one the domain detail and the dashboard give; RFC 9989 has no pct (a partial rollout becomes t=y)
// and the owner's rua is kept after the service's. The check runs through the exported queue handler.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { call, json, makeTeam } from "../../support/api";
import { installDohStub } from "../../support/doh-stub";
import { addDomain, markVerified, newDomainName, zoneFor } from "../../support/monitoring";

describe("the DMARC record of the plan", () => {
  it("is the same in the domain detail and the DMARC view, with the owner's rua and without pct", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    installDohStub(zoneFor(name, { dmarc: "v=DMARC1; p=quarantine; pct=50; rua=mailto:owner@example.org" }));
    const body = { domain_id: added.id, check_id: `chk_plan_dmarc_${added.id}`, trigger: "manual" as const };
    const batch = createMessageBatch("emailauth-checks", [{ id: "m1", timestamp: new Date(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m1"]);

    const detail = await json<{ data: { dmarc_report_address: string; plan: { steps: Array<{ category: string; records: Array<{ value: string }> }> } } }>(
      await call(`/api/v1/domains/${added.id}`, { token: team.readOnly }),
    );
    const planned = detail.data.plan.steps.find((s) => s.category === "dmarc")?.records[0]?.value;
    expect(planned).toBe(`v=DMARC1; p=quarantine; t=y; rua=mailto:${detail.data.dmarc_report_address},mailto:owner@example.org`);
    const view = await json<{ data: { suggested_record: string } }>(await call(`/api/v1/domains/${added.id}/dmarc`, { token: team.readOnly }));
    expect(view.data.suggested_record).toBe(planned);
    // Asking for failure reports adds ruf and fo to the same record.
    const withRuf = await json<{ data: { suggested_record: string } }>(await call(`/api/v1/domains/${added.id}/dmarc?ruf=true`, { token: team.readOnly }));
    expect(withRuf.data.suggested_record).toBe(`${planned}; ruf=mailto:${detail.data.dmarc_report_address}; fo=1`);
  });
});
