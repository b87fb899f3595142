// One pending check per domain: POST /check while one is queued returns it; a claim never doubles a
// queued check; a message that outlived its lease is superseded by the newer reservation.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { runCheck } from "../../../src/services/checks/run-check";
import { runDueChecks } from "../../../src/services/checks/due";
import { CHECK_LEASE_MS } from "../../../src/services/domains/schedule";
import { call, json, makeTeam } from "../../support/api";
import { installDohStub } from "../../support/doh-stub";
import { addDomain, captureChecks, clockedServices, markVerified, newDomainName, zoneFor } from "../../support/monitoring";

let capture: ReturnType<typeof captureChecks> | null = null;
afterEach(() => capture?.restore());

const requestCheck = async (token: string, id: number) => {
  const res = await call(`/api/v1/domains/${id}/check`, { method: "POST", token });
  expect(res.status).toBe(202);
  return (await json<{ data: { check_id: string } }>(res)).data.check_id;
};

describe("check deduplication", () => {
  it("a second POST /check while one is queued returns the same check and queues nothing", async () => {
    capture = captureChecks();
    const team = await makeTeam();
    const d = await addDomain(team);
    await markVerified(d.id);
    const first = await requestCheck(team.full, d.id);
    const second = await requestCheck(team.full, d.id);
    expect(second).toBe(first);
    expect(capture.sent.map((m) => m.check_id)).toEqual([first]);
    // The cron does not claim a domain whose check is pending, even when it is due.
    await env.DB.prepare("UPDATE domains SET next_check_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, d.id)
      .run();
    await runDueChecks(clockedServices(new Date()));
    expect(capture.sent.map((m) => m.check_id)).toEqual([first]);
  });

  it("once the check is recorded, a new request queues a new check", async () => {
    capture = captureChecks();
    const team = await makeTeam();
    const name = newDomainName();
    const d = await addDomain(team, name);
    await markVerified(d.id);
    const stub = installDohStub(zoneFor(name));
    const first = await requestCheck(team.full, d.id);
    await runCheck(clockedServices(new Date()), { domain_id: d.id, check_id: first, trigger: "manual" });
    const next = await requestCheck(team.full, d.id);
    expect(next).not.toBe(first);
    stub.restore();
  });

  it("a queued check that outlived its lease is superseded by the newer reservation: one check runs", async () => {
    capture = captureChecks();
    const team = await makeTeam();
    const name = newDomainName();
    const d = await addDomain(team, name);
    await markVerified(d.id);
    const stub = installDohStub(zoneFor(name));
    const old = await requestCheck(team.full, d.id);
    // The lease runs out while the message waits in a backlog; the cron claims the domain again.
    await env.DB.prepare("UPDATE domains SET pending_check_at = ?, next_check_at = ? WHERE id = ?")
      .bind(Date.now() - CHECK_LEASE_MS - 1, Date.now() - 1, d.id)
      .run();
    await runDueChecks(clockedServices(new Date()));
    const fresh = capture.sent.at(-1)?.check_id;
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(old);
    const stale = await runCheck(clockedServices(new Date()), { domain_id: d.id, check_id: old, trigger: "manual" });
    expect(stale).toEqual({ recorded: false, reason: "superseded" });
    const ran = await runCheck(clockedServices(new Date()), { domain_id: d.id, check_id: fresh ?? "", trigger: "scheduled" });
    expect(ran).toMatchObject({ recorded: true, status: "completed" });
    const n = await env.DB.prepare("SELECT COUNT(*) AS n FROM checks WHERE domain_id = ?").bind(d.id).first<{ n: number }>();
    expect(n?.n).toBe(1);
    stub.restore();
  });
});
