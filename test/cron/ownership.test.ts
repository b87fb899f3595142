// The daily ownership re-check: gone 3 days in a row -> pending again, no reports, alert and event;
// a DNS failure is unknown and changes nothing; a record that comes back clears the count.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { recheckOwnership } from "../../src/services/domains/ownership";
import { call, json, makeTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { base64, day0, enc, postJson, reportXml } from "../support/reports";
import { addDomain, alertsOf, clockedServices, eventsOf, newDomainName } from "../support/monitoring";

const DAY = 86_400_000;

async function verifiedDomain() {
  const team = await makeTeam();
  const name = newDomainName();
  const d = await addDomain(team, name);
  const zone = { [d.verification.host]: { TXT: [d.verification.value] } };
  const stub = installDohStub(zone);
  expect((await json<{ data: { verified: boolean } }>(await call(`/api/v1/domains/${d.id}/verify`, { method: "POST", token: team.full }))).data.verified).toBe(
    true,
  );
  stub.restore();
  const token = (await env.DB.prepare("SELECT report_token FROM domains WHERE id = ?").bind(d.id).first<{ report_token: string }>())?.report_token;
  return { team, d, name, address: `${token}@reports.test` };
}
const row = (id: number) =>
  env.DB.prepare("SELECT verified, ownership_missing_since AS since FROM domains WHERE id = ?").bind(id).first<{ verified: number; since: number | null }>();

describe("ownership re-check", () => {
  it("after 3 days without the record the domain is pending, takes no report, and says so by alert and event", async () => {
    const { team, d, name, address } = await verifiedDomain();
    const t0 = Date.now() + DAY; // the next daily re-check
    const stub = installDohStub({});
    for (let day = 0; day < 3; day++) {
      await recheckOwnership(clockedServices(new Date(t0 + day * DAY)));
      expect((await row(d.id))?.verified, `day ${day}: still verified`).toBe(1);
    }
    await recheckOwnership(clockedServices(new Date(t0 + 3 * DAY)));
    expect((await row(d.id))?.verified).toBe(0);
    expect((await alertsOf(d.id)).map((a) => a.kind)).toContain("ownership");
    const unverified = (await eventsOf(d.id)).filter((e) => e.type === "domain.unverified");
    expect(unverified).toHaveLength(1);
    expect(unverified[0]?.data.record).toMatchObject({ host: d.verification.host, value: d.verification.value });
    stub.restore();
    const res = await postJson({
      recipient: address,
      content_base64: base64(enc(reportXml({ domain: name, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 1 }] }))),
    });
    expect(res.status, "a pending domain takes no reports").toBe(422);
    const view = await json<{ data: { verified: boolean } }>(await call(`/api/v1/domains/${d.id}`, { token: team.full }));
    expect(view.data.verified).toBe(false);
  });

  it("a failing lookup is unknown: nothing counts as gone; a record back in time clears the count", async () => {
    const { d } = await verifiedDomain();
    const t0 = Date.now() + DAY;
    const down = installDohStub({});
    down.spy.mockImplementation(async () => new Response("down", { status: 500 }));
    for (let day = 0; day < 5; day++) await recheckOwnership(clockedServices(new Date(t0 + day * DAY)));
    expect(await row(d.id)).toEqual({ verified: 1, since: null });
    down.restore();
    const gone = installDohStub({});
    await recheckOwnership(clockedServices(new Date(t0 + 6 * DAY)));
    expect((await row(d.id))?.since).not.toBeNull();
    gone.restore();
    const back = installDohStub({ [d.verification.host]: { TXT: [d.verification.value] } });
    await recheckOwnership(clockedServices(new Date(t0 + 7 * DAY)));
    expect(await row(d.id)).toEqual({ verified: 1, since: null });
    back.restore();
  });
});
