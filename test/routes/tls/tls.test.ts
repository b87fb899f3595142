// SMTP TLS reports (RFC 8460): the HTTPS intake (plain and gzip), hostile reports refused with nothing
// stored, duplicates counted once, the tlsrpt.report.received event, the tls_failure alert, and
// GET /domains/{domain}/tls with its security cases.
import { env } from "cloudflare:workers";
import { gzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { EVENT_DATA } from "../../../src/services/events/schemas";
import { call, json, makeTeam } from "../../support/api";
import { insertDomain } from "../../support/factories";
import { enc, googleShape, intake, microsoftShape, rfcExample, storedTls } from "./fixtures";
import { outboxAndLogEvents } from "../../support/webhooks";

const body = (o: unknown) => enc(JSON.stringify(o));
const events = async (domainId: number, type: string) =>
  (await outboxAndLogEvents({ domainId })).filter((r) => r.type === type).map((r) => r.payload as { data: Record<string, unknown> });
const alertsOf = async (domainId: number, kind: string) =>
  (await env.DB.prepare("SELECT subject, occurrences, resolved_at FROM alerts WHERE domain_id = ? AND kind = ?").bind(domainId, kind).all()).results;

describe("POST /api/webhooks/tlsrpt/{token}", () => {
  it("ingests RFC 8460 §4.4's example (plain JSON): per-policy totals and every failure detail, the event and a tls_failure alert", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const res = await intake(d.reportToken, body(rfcExample(d.name, "5065427c-23d3-47ca-b6e0-946ea0e8c4be")));
    expect(res.status).toBe(202);
    const { data } = await json<{ data: Record<string, unknown> }>(res);
    expect(data).toMatchObject({ organization: "Company-X", domain: d.name, policies: 1, successful: 5326, failed: 303, duplicate: false });
    const s = await storedTls(d.id);
    expect(s.reports).toEqual([{ org_name: "Company-X", report_id: "5065427c-23d3-47ca-b6e0-946ea0e8c4be", successful: 5326, failed: 303, via: "https" }]);
    expect(s.policies).toBe(1);
    expect(s.failures).toEqual([
      {
        result_type: "certificate-expired",
        sending_mta_ip: "2001:db8:abcd:12::1",
        receiving_mx_hostname: `mx1.mail.${d.name}`,
        receiving_ip: null,
        failed_count: 100,
        failure_reason_code: null,
        policy_type: "sts",
      },
      {
        result_type: "starttls-not-supported",
        sending_mta_ip: "2001:db8:abcd:13::1",
        receiving_mx_hostname: `mx2.mail.${d.name}`,
        receiving_ip: "203.0.113.56",
        failed_count: 200,
        failure_reason_code: null,
        policy_type: "sts",
      },
      {
        result_type: "validation-failure",
        sending_mta_ip: "198.51.100.62",
        receiving_mx_hostname: `mx-backup.mail.${d.name}`,
        receiving_ip: "203.0.113.58",
        failed_count: 3,
        failure_reason_code: "X509_V_ERR_PROXY_PATH_LENGTH_EXCEEDED",
        policy_type: "sts",
      },
    ]);
    const received = await events(d.id, "tlsrpt.report.received");
    expect(received).toHaveLength(1);
    expect(received[0]?.data.report).toMatchObject({ org_name: "Company-X", successful: 5326, failed: 303, policies: ["sts"], via: "https" });
    expect(EVENT_DATA["tlsrpt.report.received"].safeParse(received[0]?.data).success, "matches its documented schema").toBe(true);
    // 303 of 5629 sessions (5.4%) with no baseline: over the rule's 5%.
    expect(await alertsOf(d.id, "tls_failure")).toEqual([{ subject: "tls:failures", occurrences: 1, resolved_at: null }]);
    const created = (await events(d.id, "alert.created")).filter((e) => (e.data.alert as { kind: string }).kind === "tls_failure");
    expect(created).toHaveLength(1);
  });

  it("ingests gzip bodies (application/tlsrpt+gzip) in the shapes Google and Microsoft send; a copy is a duplicate counted once", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const g = googleShape(d.name);
    expect((await intake(d.reportToken, gzipSync(body(g)), "application/tlsrpt+gzip")).status).toBe(202);
    expect((await intake(d.reportToken, gzipSync(body(microsoftShape(d.name))), "application/tlsrpt+gzip")).status).toBe(202);
    const again = await intake(d.reportToken, body(g));
    expect(again.status).toBe(200);
    expect((await json<{ data: { duplicate: boolean } }>(again)).data.duplicate).toBe(true);
    const s = await storedTls(d.id);
    expect(s.reports.map((r) => r.org_name)).toEqual(["Google Inc.", "Microsoft Corporation"]);
    expect(s.failures).toEqual([
      expect.objectContaining({ result_type: "certificate-host-mismatch", receiving_mx_hostname: `mx1.${d.name}`, policy_type: "no-policy-found" }),
    ]);
    expect(await events(d.id, "tlsrpt.report.received")).toHaveLength(2);
    // 2 of 42 sessions: under the rule's 100 sessions, no alert.
    expect(await alertsOf(d.id, "tls_failure")).toEqual([]);
  });

  it("refuses hostile reports with a 4xx and stores nothing", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const good = rfcExample(d.name);
    const policy = good.policies[0];
    if (!policy) throw new Error("fixture");
    const cases: Array<[string, BodyInit, number, string?]> = [
      ["not JSON", enc("{not json"), 422],
      ["JSON, not a report", body({ hello: "world" }), 422],
      ["missing report-id", body({ ...good, "report-id": undefined }), 422],
      ["missing policies", body({ ...good, policies: [] }), 422],
      [
        "a huge count",
        body({ ...good, policies: [{ ...policy, summary: { "total-successful-session-count": 1e300, "total-failure-session-count": 1 } }] }),
        422,
      ],
      [
        "a negative count",
        body({ ...good, policies: [{ ...policy, summary: { "total-successful-session-count": -1, "total-failure-session-count": 1 } }] }),
        422,
      ],
      [
        "a fractional count",
        body({ ...good, policies: [{ ...policy, summary: { "total-successful-session-count": 1.5, "total-failure-session-count": 1 } }] }),
        422,
      ],
      [
        "a string count",
        body({ ...good, policies: [{ ...policy, summary: { "total-successful-session-count": "5", "total-failure-session-count": 1 } }] }),
        422,
      ],
      ["an unknown policy type", body({ ...good, policies: [{ ...policy, policy: { ...policy.policy, "policy-type": "magic" } }] }), 422],
      ["a bad date", body({ ...good, "date-range": { "start-datetime": "yesterday", "end-datetime": "today" } }), 422],
      ["end before start", body({ ...good, "date-range": { "start-datetime": "2030-01-02T00:00:00Z", "end-datetime": "2030-01-01T00:00:00Z" } }), 422],
      ["another domain's policy", body(rfcExample("other.example")), 422],
      ["a truncated gzip", gzipSync(body(good)).subarray(0, 40), 422, "application/tlsrpt+gzip"],
      ["a gzip bomb (21 MB of zeros)", gzipSync(new Uint8Array(21 * 1024 * 1024)), 413, "application/tlsrpt+gzip"],
      ["over 1 MB on the wire", new Uint8Array(1024 * 1024 + 1).fill(0x20), 413],
      ["a wrong media type", body(good), 415, "application/json"],
    ];
    for (const [what, b, status, type] of cases) {
      const res = await intake(d.reportToken, b, type);
      expect(res.status, what).toBe(status);
      const e = await json<{ code: string; message: string }>(res);
      expect(e.message, what).toBeTruthy();
      expect(e.code, what).not.toBe("internal_error");
    }
    expect(await storedTls(d.id)).toEqual({ reports: [], policies: 0, failures: [] });
    expect(await events(d.id, "tlsrpt.report.received")).toEqual([]);
  });

  it("an unknown token is a 404 and an unverified domain's token a 422; nothing stored", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { verified: false });
    expect((await intake("nosuchtoken000000000", body(rfcExample(d.name)))).status).toBe(404);
    expect((await intake("../../etc", body(rfcExample(d.name)))).status).toBe(404);
    expect((await intake(d.reportToken, body(rfcExample(d.name)))).status).toBe(422);
    expect((await storedTls(d.id)).reports).toEqual([]);
  });
});

describe("GET /domains/{domain}/tls", () => {
  it("gives the success rate, daily series, failures by type with advice and by MX, the policies and the rua", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    await intake(d.reportToken, body(rfcExample(d.name)));
    await intake(d.reportToken, body(googleShape(d.name, 1000)));
    const res = await call(`/api/v1/domains/${d.id}/tls?days=7`, { token: team.readOnly });
    expect(res.status).toBe(200);
    const { data } = await json<{ data: Record<string, any> }>(res);
    expect(data.summary).toMatchObject({ reports: 2, organizations: 2, successful: 6326, failed: 303 });
    expect(data.summary.success_rate).toBeCloseTo(6326 / 6629, 4);
    expect(data.daily).toHaveLength(7);
    expect(data.daily.reduce((n: number, x: { failed: number }) => n + x.failed, 0)).toBe(303);
    expect(data.failures_by_type.map((f: { result_type: string; failed: number }) => [f.result_type, f.failed])).toEqual([
      ["starttls-not-supported", 200],
      ["certificate-expired", 100],
      ["validation-failure", 3],
    ]);
    const expired = data.failures_by_type[1];
    expect(expired.mx_hosts).toEqual([`mx1.mail.${d.name}`]);
    expect(expired.advice).toContain(`mx1.mail.${d.name} has expired`);
    expect(expired.advice).toContain("MTA-STS policy");
    expect(data.failures_by_mx[0]).toEqual({ mx_host: `mx2.mail.${d.name}`, failed: 200, result_types: ["starttls-not-supported"] });
    expect(data.policies.map((p: { policy_type: string }) => p.policy_type).sort()).toEqual(["sts", "sts"]);
    expect(data.rua).toBe(`mailto:${d.reportToken}@reports.test`);
  });

  it("is empty without reports, validates days, and keeps teams apart", async () => {
    const team = await makeTeam();
    const other = await makeTeam();
    const d = await insertDomain(team.id);
    const empty = await json<{ data: Record<string, any> }>(await call(`/api/v1/domains/${d.id}/tls`, { token: team.full }));
    expect(empty.data.summary).toMatchObject({ reports: 0, success_rate: null });
    expect(empty.data.daily).toHaveLength(30);
    expect((await call(`/api/v1/domains/${d.id}/tls?days=0`, { token: team.full })).status).toBe(422);
    expect((await call(`/api/v1/domains/${d.id}/tls?days=366`, { token: team.full })).status).toBe(422);
    expect((await call(`/api/v1/domains/${d.id}/tls`, { token: other.full })).status).toBe(404);
    expect((await call(`/api/v1/domains/${d.id}/tls`)).status).toBe(401);
    expect((await call(`/api/v1/domains/${d.id}/tls`, { token: "eam_wrong" })).status).toBe(401);
  });
});
