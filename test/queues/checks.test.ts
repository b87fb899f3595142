// The monitoring loop with DNS mocked: add, verify, check, change records, check again; stale parts; redelivery; failures.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { consumeChecks, consumeChecksDlq } from "../../src/queues/checks";
import { runCheck } from "../../src/services/checks/run-check";
import { call, json, makeTeam } from "../support/api";
import { seedReport } from "../support/reports";
import { type DohStub, installDohStub, type StubZone } from "../support/doh-stub";
import {
  addDomain,
  alertsOf,
  captureChecks,
  clockedServices,
  diffsOf,
  dkimRecord,
  eventsOf,
  fakeBatch,
  markVerified,
  newDomainName,
  zoneFor,
} from "../support/monitoring";

let stub: DohStub | null = null;
let capture: ReturnType<typeof captureChecks> | null = null;
afterEach(() => {
  capture?.restore();
  capture = null;
});
const serve = (zone: StubZone) => {
  stub?.restore();
  stub = installDohStub(zone);
  return stub;
};
const HOUR = 3_600_000;

describe("check pipeline (emailauth-checks consumer)", () => {
  it("runs the whole loop: verify, first check, DMARC and SPF changes, diffs, events and alerts", async () => {
    capture = captureChecks();
    const team = await makeTeam("pro");
    const name = newDomainName();
    const added = await addDomain(team, name);
    const dkim = await dkimRecord(name);

    // Before the TXT record exists: not verified, nothing queued.
    serve(zoneFor(name, { dkimRecord: dkim.record }));
    let res = await call(`/api/v1/domains/${added.id}/verify`, { method: "POST", token: team.full });
    expect(res.status).toBe(200);
    expect((await json<{ data: { verified: boolean; record_found: boolean } }>(res)).data).toMatchObject({ verified: false, record_found: false });
    expect(capture.sent).toHaveLength(0);

    // After: verified, first check queued with trigger "verify".
    serve(zoneFor(name, { dkimRecord: dkim.record, verifyValue: added.verification.value }));
    res = await call(`/api/v1/domains/${added.id}/verify`, { method: "POST", token: team.full });
    expect((await json<{ data: { verified: boolean } }>(res)).data.verified).toBe(true);
    expect(capture.sent).toEqual([{ domain_id: added.id, check_id: expect.stringMatching(/^chk_/), trigger: "verify" }]);
    const first = capture.sent[0];
    if (!first) throw new Error("no message");

    const t1 = new Date();
    const { batch, messages } = fakeBatch([first]);
    await consumeChecks(batch, clockedServices(t1));
    expect(messages[0]?.ack, "acked").toHaveBeenCalled();

    const view = await json<{ data: Record<string, any> }>(await call(`/api/v1/domains/${added.id}`, { token: team.full }));
    expect(view.data.score, "scored").toEqual(expect.any(Number));
    expect(view.data.dmarc_policy).toBe("reject");
    expect(view.data.posture.records.dmarc.record).toContain("p=reject");
    expect(view.data.posture.stale_parts).toEqual([]);
    expect(Date.parse(view.data.next_check_at) - t1.getTime(), "pro plan: 6 h").toBe(6 * HOUR);
    expect(await diffsOf(added.id), "the first check has nothing to compare").toEqual([]);
    const evs1 = await eventsOf(added.id);
    expect(evs1.map((e) => e.type)).toEqual(expect.arrayContaining(["domain.created", "domain.verified", "check.completed", "dkim.selector.added"]));
    expect(evs1.filter((e) => e.type === "check.completed")[0]?.data.domain).toEqual({ id: added.id, name });

    // Weaken DMARC and change the SPF include.
    serve(zoneFor(name, { dkimRecord: dkim.record, dmarc: "v=DMARC1; p=none; rua=mailto:dmarc@example.org", spf: "v=spf1 include:_spf.example.net -all" }));
    const t2 = new Date(t1.getTime() + 6 * HOUR);
    const out = await runCheck(clockedServices(t2), { domain_id: added.id, check_id: `chk_loop2_${added.id}`, trigger: "scheduled" });
    expect(out).toMatchObject({ recorded: true, status: "completed" });

    const d = await diffsOf(added.id);
    expect(d).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ category: "dmarc", field: "p", before: "reject", after: "none", severity: "High" }),
        expect.objectContaining({ category: "dmarc", field: "record", severity: "Low" }),
        expect.objectContaining({ category: "spf", field: "record", severity: "Medium" }),
      ]),
    );
    const evs2 = (await eventsOf(added.id)).slice(evs1.length);
    const types = evs2.map((e) => e.type);
    expect(
      types.filter((t) => t === "posture.changed"),
      "one event with all changes",
    ).toHaveLength(1);
    expect(
      types.filter((t) => t === "dns.record.changed"),
      "one per changed record (SPF, DMARC)",
    ).toHaveLength(2);
    const posture = evs2.find((e) => e.type === "posture.changed");
    expect((posture?.data.changes as unknown[] | undefined)?.length).toBe(d.length);
    const dmarcChange = evs2.find((e) => e.type === "dns.record.changed" && e.data.record_type === "dmarc");
    expect(dmarcChange?.data).toMatchObject({ host: `_dmarc.${name}`, before: expect.stringContaining("p=reject"), after: expect.stringContaining("p=none") });

    const alerts = await alertsOf(added.id);
    expect(alerts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "drift", subject: "dmarc.p", severity: "High", occurrences: 1 }),
        expect.objectContaining({ kind: "drift", subject: "spf.record", severity: "Medium" }),
      ]),
    );
    expect(
      alerts.find((a) => a.subject === "dmarc.record"),
      "Low changes raise no alert",
    ).toBeUndefined();
    const created = evs2.filter((e) => e.type === "alert.created");
    expect(created).toHaveLength(alerts.length);
    expect((created[0]?.data.alert as { id: number } | undefined)?.id, "alert id filled in").toEqual(expect.any(Number));

    const history = await json<{ data: Array<{ id: string }>; meta: { total: number } }>(
      await call(`/api/v1/domains/${added.id}/checks`, { token: team.full }),
    );
    expect(history.meta.total).toBe(2);
    expect(history.data[0]?.id, "newest first").toBe(`chk_loop2_${added.id}`);
  });

  it("a redelivered message records nothing twice", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    serve(zoneFor(name));
    const msg = { domain_id: added.id, check_id: `chk_redeliver_${added.id}`, trigger: "manual" as const };
    const svc = clockedServices(new Date());
    const { batch, messages } = fakeBatch([msg, msg]);
    await consumeChecks(batch, svc);
    expect(messages.every((m) => m.ack.mock.calls.length === 1)).toBe(true);
    expect(await runCheck(svc, msg)).toEqual({ recorded: false, reason: "duplicate" });
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM checks WHERE domain_id = ?").bind(added.id).first<{ n: number }>();
    expect(rows?.n).toBe(1);
    expect((await eventsOf(added.id)).filter((e) => e.type === "check.completed")).toHaveLength(1);
  });

  it("a resolver failure during a check: the part is stale, no diff, no event, no alert; the next good check diffs against the last good value", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const t0 = Date.now();
    serve(zoneFor(name));
    await runCheck(clockedServices(new Date(t0)), { domain_id: added.id, check_id: `chk_s1_${added.id}`, trigger: "manual" });
    const before = (await eventsOf(added.id)).length;

    // DMARC now fails to resolve while its record changed: nothing may be reported.
    const s = serve(zoneFor(name, { dmarc: "v=DMARC1; p=none" }));
    s.setFault(`_dmarc.${name}`, "TXT", "servfail");
    await runCheck(clockedServices(new Date(t0 + HOUR)), { domain_id: added.id, check_id: `chk_s2_${added.id}`, trigger: "manual" });
    expect(await diffsOf(added.id)).toEqual([]);
    const evs = (await eventsOf(added.id)).slice(before);
    expect(
      evs.map((e) => e.type),
      "only check.completed",
    ).toEqual(["check.completed"]);
    expect((evs[0]?.data.check as { stale_parts: string[] } | undefined)?.stale_parts).toContain("dmarc");
    expect(await alertsOf(added.id)).toEqual([]);
    const view = await json<{ data: Record<string, any> }>(await call(`/api/v1/domains/${added.id}`, { token: team.full }));
    expect(view.data.posture.records.dmarc, "last good value carried over").toMatchObject({ stale: true, record: expect.stringContaining("p=reject") });
    expect(view.data.dmarc_policy).toBe("reject");

    serve(zoneFor(name, { dmarc: "v=DMARC1; p=none" }));
    await runCheck(clockedServices(new Date(t0 + 2 * HOUR)), { domain_id: added.id, check_id: `chk_s3_${added.id}`, trigger: "manual" });
    expect(await diffsOf(added.id)).toEqual(
      expect.arrayContaining([expect.objectContaining({ check_id: `chk_s3_${added.id}`, category: "dmarc", field: "p", before: "reject", after: "none" })]),
    );
  });

  it("a check where every lookup fails is recorded as failed and retried in 15 minutes", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    stub = installDohStub({});
    stub.spy.mockImplementation(async () => new Response("down", { status: 500 }));
    const t = new Date();
    const out = await runCheck(clockedServices(t), { domain_id: added.id, check_id: `chk_fail_${added.id}`, trigger: "scheduled" });
    expect(out).toMatchObject({ recorded: true, status: "failed" });
    const row = await env.DB.prepare("SELECT next_check_at, score, last_check_id FROM domains WHERE id = ?")
      .bind(added.id)
      .first<{ next_check_at: number; score: number | null; last_check_id: string | null }>();
    expect(row).toEqual({ next_check_at: t.getTime() + 15 * 60_000, score: null, last_check_id: null });
    const events = await eventsOf(added.id);
    expect(
      events.map((e) => e.type),
      "check.completed says the check failed; nothing else is emitted",
    ).toEqual(["domain.created", "check.completed"]);
    expect(events[1]?.data.check).toMatchObject({
      id: `chk_fail_${added.id}`,
      status: "failed",
      error: expect.stringContaining("temperror"),
      score: null,
      changes: 0,
    });
  });

  it("checks sending hosts too: the domain's own SPF hosts and aligned DMARC report sources", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const now = Date.now();
    await seedReport(added.id, {
      orgName: "google.com",
      dateBegin: now - 2 * 86_400_000,
      dateEnd: now - 86_400_000,
      rows: [[new Date(now - 86_400_000).toISOString().slice(0, 10), "203.0.113.9", null, null, 1, 0, null, null, null, null, null, 40]],
    });
    const listed = (ip: string) => ({ [`${ip.split(".").reverse().join(".")}.bl.spamcop.net`]: { A: ["127.0.0.2"] } });
    serve({ ...zoneFor(name, { spf: "v=spf1 ip4:198.51.100.7 include:_spf.google.com -all" }), ...listed("198.51.100.7"), ...listed("203.0.113.9") });
    await runCheck(clockedServices(new Date(now)), { domain_id: added.id, check_id: `chk_send_${added.id}`, trigger: "manual" });
    const targets = (await eventsOf(added.id))
      .filter((e) => e.type === "blacklist.listed")
      .map((e) => e.data.target)
      .sort();
    expect(targets).toEqual(["198.51.100.7", "203.0.113.9"]);
  });

  it("scheduled checks fetch and check the BIMI logo, as on-demand posture does", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    stub?.restore();
    stub = installDohStub(
      { ...zoneFor(name), [`default._bimi.${name}`]: { TXT: [`v=BIMI1; l=https://logo.${name}/brand.svg`] } },
      {
        passthrough: (req) =>
          req.url === `https://logo.${name}/brand.svg`
            ? new Response('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><script>x</script></svg>', {
                headers: { "content-type": "image/svg+xml" },
              })
            : new Response("no", { status: 404 }),
      },
    );
    await runCheck(clockedServices(new Date()), { domain_id: added.id, check_id: `chk_bimi_${added.id}`, trigger: "scheduled" });
    const view = await json<{ data: { posture: { findings: Array<{ rule: string }> } } }>(await call(`/api/v1/domains/${added.id}`, { token: team.full }));
    const rules = view.data.posture.findings.map((f) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(["bimi.svg-script", "bimi.svg-profile"]));
  });

  it("an MX address that fails to resolve is no delisting: no blacklist.delisted, no diff", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const t0 = Date.now();
    serve(zoneFor(name, { listedOnSpamcop: true }));
    await runCheck(clockedServices(new Date(t0)), { domain_id: added.id, check_id: `chk_mxf1_${added.id}`, trigger: "manual" });
    const s = serve(zoneFor(name, { listedOnSpamcop: true }));
    s.setFault(`mx.${name}`, "A", "servfail");
    s.setFault(`mx.${name}`, "AAAA", "servfail");
    await runCheck(clockedServices(new Date(t0 + HOUR)), { domain_id: added.id, check_id: `chk_mxf2_${added.id}`, trigger: "manual" });
    expect((await eventsOf(added.id)).filter((e) => e.type.startsWith("blacklist.")).map((e) => e.type)).toEqual(["blacklist.listed"]);
    const diffs = (await diffsOf(added.id)).filter((d) => d.category === "blacklist");
    expect(
      diffs.map((d) => [d.check_id, d.after]),
      "the first check reports the listing; the second changes nothing",
    ).toEqual([[`chk_mxf1_${added.id}`, "listed"]]);
    expect(
      (await alertsOf(added.id)).filter((a) => a.kind === "blacklist"),
      "a listing at the first check raises its alert",
    ).toHaveLength(1);
  });

  it("raises a blacklist alert once per listing and updates it on repeat; the delisting is an event", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const t0 = Date.now();
    serve(zoneFor(name));
    await runCheck(clockedServices(new Date(t0)), { domain_id: added.id, check_id: `chk_b1_${added.id}`, trigger: "manual" });
    serve(zoneFor(name, { listedOnSpamcop: true }));
    await runCheck(clockedServices(new Date(t0 + HOUR)), { domain_id: added.id, check_id: `chk_b2_${added.id}`, trigger: "manual" });
    const listed = (await eventsOf(added.id)).filter((e) => e.type === "blacklist.listed");
    expect(listed.map((e) => e.data)).toEqual([expect.objectContaining({ list: "SpamCop", target: "192.0.2.10" })]);
    expect(await alertsOf(added.id)).toEqual([
      expect.objectContaining({ kind: "blacklist", subject: "dnsbl:SpamCop:192.0.2.10", severity: "High", occurrences: 1 }),
    ]);

    serve(zoneFor(name));
    await runCheck(clockedServices(new Date(t0 + 2 * HOUR)), { domain_id: added.id, check_id: `chk_b3_${added.id}`, trigger: "manual" });
    expect((await eventsOf(added.id)).filter((e) => e.type === "blacklist.delisted")).toHaveLength(1);
    serve(zoneFor(name, { listedOnSpamcop: true }));
    await runCheck(clockedServices(new Date(t0 + 3 * HOUR)), { domain_id: added.id, check_id: `chk_b4_${added.id}`, trigger: "manual" });
    expect(await alertsOf(added.id), "one open alert per subject").toEqual([expect.objectContaining({ subject: "dnsbl:SpamCop:192.0.2.10", occurrences: 2 })]);
    expect(
      (await eventsOf(added.id)).filter((e) => e.type === "alert.created"),
      "a repeat opens nothing new",
    ).toHaveLength(1);
  });

  it("DKIM key rotation becomes a diff, a dkim.key.rotated event and a drift alert", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const [k1, k2] = [await dkimRecord(name), await dkimRecord(name)];
    const t0 = Date.now();
    serve(zoneFor(name, { dkimRecord: k1.record }));
    await runCheck(clockedServices(new Date(t0)), { domain_id: added.id, check_id: `chk_k1_${added.id}`, trigger: "manual" });
    serve(zoneFor(name, { dkimRecord: k2.record }));
    await runCheck(clockedServices(new Date(t0 + HOUR)), { domain_id: added.id, check_id: `chk_k2_${added.id}`, trigger: "manual" });
    expect(await diffsOf(added.id)).toEqual([
      expect.objectContaining({ category: "dkim", field: "selector:google", before: k1.fingerprint, after: k2.fingerprint, severity: "Medium" }),
    ]);
    expect((await eventsOf(added.id)).map((e) => e.type)).toEqual(expect.arrayContaining(["dkim.key.rotated", "posture.changed"]));
    expect(await alertsOf(added.id)).toEqual([expect.objectContaining({ kind: "drift", subject: "dkim.selector:google", severity: "Medium" })]);
  });

  it("raises an expiry alert from RDAP (IANA bootstrap, cached) and asks RDAP at most once a day", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const t0 = Date.now();
    const expires = new Date(t0 + 10 * 86_400_000).toISOString();
    const rdapCalls: string[] = [];
    stub = installDohStub(zoneFor(name), {
      passthrough: (req) => {
        rdapCalls.push(req.url);
        if (req.url === "https://data.iana.org/rdap/dns.json") {
          return Response.json({ version: "1.0", services: [[["com", "net"], ["https://rdap.example-registry.test/"]]] });
        }
        if (req.url === `https://rdap.example-registry.test/domain/${name}`) {
          return Response.json({
            objectClassName: "domain",
            ldhName: name,
            events: [
              { eventAction: "registration", eventDate: "2020-01-01T00:00:00Z" },
              { eventAction: "expiration", eventDate: expires },
            ],
          });
        }
        return new Response("not found", { status: 404 });
      },
    });
    await runCheck(clockedServices(new Date(t0)), { domain_id: added.id, check_id: `chk_r1_${added.id}`, trigger: "manual" });
    expect(await alertsOf(added.id)).toEqual([expect.objectContaining({ kind: "expiry", subject: "registration", severity: "High" })]);
    const row = await env.DB.prepare("SELECT registration_expires_at AS e FROM domains WHERE id = ?").bind(added.id).first<{ e: number }>();
    expect(row?.e).toBe(Date.parse(expires));
    const asked = rdapCalls.filter((u) => u.includes(name)).length;
    expect(asked).toBe(1);
    await runCheck(clockedServices(new Date(t0 + 3_600_000)), { domain_id: added.id, check_id: `chk_r2_${added.id}`, trigger: "manual" });
    expect(rdapCalls.filter((u) => u.includes(name)).length, "checked at most daily").toBe(1);
    expect(await alertsOf(added.id), "the repeat updates the open alert").toEqual([expect.objectContaining({ kind: "expiry", occurrences: 2 })]);
  });

  it("acks malformed messages and skips deleted or unverified domains; the DLQ consumer acks", async () => {
    const team = await makeTeam();
    const added = await addDomain(team);
    const { batch, messages } = fakeBatch([
      { nope: true },
      { domain_id: added.id, check_id: "chk_unverified_x", trigger: "manual" },
      { domain_id: 99_999_999, check_id: "chk_gone_x", trigger: "manual" },
    ]);
    await consumeChecks(batch, clockedServices(new Date()));
    expect(messages.map((m) => m.ack.mock.calls.length)).toEqual([1, 1, 1]);
    const dlq = fakeBatch([{ domain_id: 1, check_id: "chk_dead", trigger: "manual" }], "emailauth-checks-dlq");
    await consumeChecksDlq(dlq.batch);
    expect(dlq.messages[0]?.ack).toHaveBeenCalled();
  });
});
