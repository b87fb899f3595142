// The posture check of a hosted domain (issue 32 §1): what receivers fetch from mta-sts.<domain> and the
// id they resolve must be what the service serves. Here the policy host is reached the way a sender
// reaches it in production (HTTPS to the name, answered by this Worker through the custom hostname), then
// by a stale copy elsewhere: the difference raises the "hosting" alert, and the match resolves it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { runCheck } from "../../../src/services/checks/run-check";
import { call, json, makeTeam, unique } from "../../support/api";
import { installCloudflare } from "../../support/cloudflare-api";
import type { StubZone } from "../../support/doh-stub";
import { insertDomain } from "../../support/factories";
import { PUBLIC_IP, testServices } from "../../support/webhooks";

const alertsOf = async (domainId: number) =>
  (
    await env.DB.prepare("SELECT subject, resolved_at FROM alerts WHERE domain_id = ? AND kind = 'hosting' ORDER BY id")
      .bind(domainId)
      .all<{ subject: string; resolved_at: number | null }>()
  ).results;

describe("the MTA-STS part of a hosted domain's check", () => {
  it("matches what we serve (no alert), then a different policy at the host raises mta_sts.policy, and the match resolves it", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const zone: StubZone = {
      [d.name]: { MX: [{ preference: 10, exchange: `mx.${d.name}` }] },
      [`mx.${d.name}`]: { A: [PUBLIC_IP] },
      [`mta-sts.${d.name}`]: { CNAME: "hosting.test" },
      "hosting.test": { A: [PUBLIC_IP] },
    };
    let stale: string | null = null;
    // HTTPS to mta-sts.<domain>: this Worker answers (Cloudflare for SaaS), unless a test serves a stale copy.
    installCloudflare(zone, async (req) => {
      if (new URL(req.url).host !== `mta-sts.${d.name}`) return new Response("not found", { status: 404 });
      return stale !== null
        ? new Response(stale, { headers: { "content-type": "text/plain" } })
        : worker.fetch(req as Parameters<typeof worker.fetch>[0], env, {} as ExecutionContext);
    });
    const put = await call(`/api/v1/domains/${d.id}/mta-sts-hosting`, { method: "PUT", token: team.full, body: { id_delivery: "cname" } });
    const hosting = (await json<{ data: { hosting: { policy_id: string } } }>(put)).data.hosting;
    zone[`_mta-sts.${d.name}`] = { CNAME: `${d.name}.sts-id.test` };
    zone[`${d.name}.sts-id.test`] = { TXT: [`v=STSv1; id=${hosting.policy_id}`] };

    const svc = testServices();
    await runCheck(svc, { domain_id: d.id, check_id: `chk_${unique("a")}`, trigger: "manual" });
    expect(await alertsOf(d.id)).toEqual([]);
    expect(await env.DB.prepare("SELECT published_id FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first()).toEqual({ published_id: hosting.policy_id });

    stale = `version: STSv1\r\nmode: enforce\r\nmx: mx.${d.name}\r\nmax_age: 604800\r\n`;
    await runCheck(svc, { domain_id: d.id, check_id: `chk_${unique("b")}`, trigger: "manual" });
    expect(await alertsOf(d.id)).toEqual([{ subject: "mta_sts.policy", resolved_at: null }]);

    stale = null;
    await runCheck(svc, { domain_id: d.id, check_id: `chk_${unique("c")}`, trigger: "manual" });
    const after = await alertsOf(d.id);
    expect(after.map((a) => a.subject)).toEqual(["mta_sts.policy"]);
    expect(after[0]?.resolved_at).not.toBeNull();
  });

  it("raises mta_sts.id when the new id was added beside the old one: two v=STSv1 records are no policy (RFC 8461 §3.1)", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const zone: StubZone = { [d.name]: { MX: [{ preference: 10, exchange: `mx.${d.name}` }] }, [`mx.${d.name}`]: { A: [PUBLIC_IP] } };
    installCloudflare(zone);
    const put = await call(`/api/v1/domains/${d.id}/mta-sts-hosting`, { method: "PUT", token: team.full, body: { id_delivery: "txt" } });
    const hosting = (await json<{ data: { hosting: { policy_id: string } } }>(put)).data.hosting;
    zone[`_mta-sts.${d.name}`] = { TXT: ["v=STSv1; id=20250101000000", `v=STSv1; id=${hosting.policy_id}`] };
    await runCheck(testServices(), { domain_id: d.id, check_id: `chk_${unique("d")}`, trigger: "manual" });
    expect(await alertsOf(d.id)).toEqual([{ subject: "mta_sts.id", resolved_at: null }]);
    expect(await env.DB.prepare("SELECT published_id FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first()).toEqual({ published_id: null });
  });

  it("raises nothing when the policy changed while the check ran: it compares with what was served when it started", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const zone: StubZone = {
      [d.name]: { MX: [{ preference: 10, exchange: `mx.${d.name}` }] },
      [`mx.${d.name}`]: { A: [PUBLIC_IP] },
      [`mta-sts.${d.name}`]: { CNAME: "hosting.test" },
      "hosting.test": { A: [PUBLIC_IP] },
    };
    let changeFirst = false;
    installCloudflare(zone, async (req) => {
      if (new URL(req.url).host !== `mta-sts.${d.name}`) return new Response("not found", { status: 404 });
      // The team saves a new max_age just as the check fetches the policy.
      if (changeFirst) {
        changeFirst = false;
        expect((await call(`/api/v1/domains/${d.id}/mta-sts-hosting`, { method: "PUT", token: team.full, body: { max_age: 1_209_600 } })).status).toBe(200);
      }
      return worker.fetch(req as Parameters<typeof worker.fetch>[0], env, {} as ExecutionContext);
    });
    const put = await call(`/api/v1/domains/${d.id}/mta-sts-hosting`, { method: "PUT", token: team.full, body: { id_delivery: "txt" } });
    const hosting = (await json<{ data: { hosting: { policy_id: string } } }>(put)).data.hosting;
    zone[`_mta-sts.${d.name}`] = { TXT: [`v=STSv1; id=${hosting.policy_id}`] };
    changeFirst = true;
    await runCheck(testServices(), { domain_id: d.id, check_id: `chk_${unique("e")}`, trigger: "manual" });
    expect(changeFirst).toBe(false);
    expect(await alertsOf(d.id)).toEqual([]);
  });
});
