import { afterEach, describe, expect, it } from "vitest";
import { EVENT_DATA } from "../../src/services/events/schemas";
import { EVENT_TYPES, type EventType } from "../../src/services/events/emit";
import { runCheck } from "../../src/services/checks/run-check";
import { call, json, makeTeam } from "../support/api";
import { type DohStub, installDohStub, type StubZone } from "../support/doh-stub";
import { addDomain, captureChecks, clockedServices, dkimRecord, newDomainName, zoneFor } from "../support/monitoring";
import { outboxAndLogEvents } from "../support/webhooks";

let stub: DohStub | null = null;
let capture: ReturnType<typeof captureChecks> | null = null;
afterEach(() => {
  capture?.restore();
  capture = null;
});
const serve = (zone: StubZone) => {
  stub?.restore();
  stub = installDohStub(zone);
};
const HOUR = 3_600_000;

describe("emitted events match their published schemas", () => {
  it("domain, check, posture, DNS, blacklist, DKIM, alert and webhook events of a whole flow", async () => {
    capture = captureChecks();
    const team = await makeTeam("enterprise");
    const name = newDomainName();
    const added = await addDomain(team, name);
    const k1 = await dkimRecord(name);
    const k2 = await dkimRecord(name);
    serve(zoneFor(name, { dkimRecord: k1.record, verifyValue: added.verification.value }));
    await call(`/api/v1/domains/${added.id}/verify`, { method: "POST", token: team.full });
    const t0 = Date.now();
    // The first check is the one verification reserved and queued.
    const queued = capture.sent[0]?.check_id ?? "";
    await runCheck(clockedServices(new Date(t0)), { domain_id: added.id, check_id: queued, trigger: "verify" });
    serve(
      zoneFor(name, {
        dkimRecord: k2.record,
        dmarc: "v=DMARC1; p=none; rua=mailto:d@example.org",
        spf: "v=spf1 include:_spf.example.net ~all",
        listedOnSpamcop: true,
      }),
    );
    await runCheck(clockedServices(new Date(t0 + HOUR)), { domain_id: added.id, check_id: `chk_es2_${added.id}`, trigger: "scheduled" });
    serve(zoneFor(name, { dkimRecord: "v=DKIM1; p=", verifyValue: added.verification.value }));
    await runCheck(clockedServices(new Date(t0 + 2 * HOUR)), { domain_id: added.id, check_id: `chk_es3_${added.id}`, trigger: "scheduled" });
    serve({ ...zoneFor(name, { dkimRecord: null, verifyValue: added.verification.value }), "hooks.example.com": { A: ["93.184.216.34"] } });
    await runCheck(clockedServices(new Date(t0 + 3 * HOUR)), { domain_id: added.id, check_id: `chk_es4_${added.id}`, trigger: "manual" });

    const alerts = await json<{ data: Array<{ id: number }> }>(await call("/api/v1/alerts", { token: team.full }));
    const first = alerts.data[0];
    if (first) await call(`/api/v1/alerts/${first.id}/resolve`, { method: "POST", token: team.full });
    const hook = await json<{ data: { id: number } }>(
      await call("/api/v1/webhooks", { method: "POST", token: team.full, body: { url: "https://hooks.example.com/in", events: ["*"] } }),
    );
    await call(`/api/v1/webhooks/${hook.data.id}/test`, { method: "POST", token: team.full });
    await call(`/api/v1/domains/${added.id}`, { method: "DELETE", token: team.full });

    const rows = { results: (await outboxAndLogEvents({ teamId: team.id })).map((e) => ({ type: e.type, payload: JSON.stringify(e.payload) })) };
    const seen = new Set<string>();
    for (const row of rows.results) {
      const payload = JSON.parse(row.payload) as { type: string; data: unknown; id: string; api_version: string; timestamp: string };
      expect(EVENT_TYPES, row.type).toContain(payload.type);
      const parsed = EVENT_DATA[payload.type as EventType].safeParse(payload.data);
      expect(parsed.success ? [] : parsed.error.issues, `${row.type}: ${row.payload}`).toEqual([]);
      expect(payload.id).toMatch(/^evt_/);
      seen.add(row.type);
    }
    const expected = [
      "domain.created",
      "domain.verified",
      "domain.deleted",
      "check.completed",
      "posture.changed",
      "dns.record.changed",
      "blacklist.listed",
      "alert.created",
      "alert.resolved",
      "dkim.selector.added",
      "dkim.key.rotated",
      "dkim.key.revoked",
      "dkim.selector.removed",
      "webhook.test",
    ];
    for (const type of expected) expect([...seen], `a ${type} event was emitted and checked`).toContain(type);
  });
});
