import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { alerts as alertsTable, dkimSelectors } from "../../../src/db/schema";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { installDohStub, type DohStub, type StubZone } from "../../support/doh-stub";
import { eventsOf, insertDomain, newKey, services } from "../../support/dkim-inventory";
import { seedReport } from "../../support/reports";

type Sel = Record<string, any>;
const svc = services();
let team: TestTeam;
let other: TestTeam;
let stub: DohStub | null = null;
beforeAll(async () => {
  [team, other] = await Promise.all([makeTeam(), makeTeam()]);
});

const base = (id: number) => `/api/v1/domains/${id}/dkim`;
const add = (id: number, selector: unknown, token = team.full) => call(`${base(id)}/selectors`, { method: "POST", token, body: { selector } });

/** A report of today with the given DKIM rows, written into the domain's report object. */
async function addReport(domainId: number, rows: Array<{ d: string; s: string; result: string; ip: string; n: number }>) {
  const today = new Date().toISOString().slice(0, 10);
  await seedReport(domainId, {
    orgName: "google.com",
    rows: rows.map((r) => [today, r.ip, null, null, 1, 1, r.d, r.s, r.result, null, null, r.n]),
  });
}

describe("POST /domains/{domain}/dkim/selectors", () => {
  it("adds a manual selector, looks it up at once (201), and answers 200 when already known", async () => {
    const domain = await insertDomain(svc, team.id);
    const key = await newKey(domain.name, "mail2026");
    stub = installDohStub({ [`mail2026._domainkey.${domain.name}`]: { TXT: [key.dns.value] } });
    const res = await add(domain.id, "Mail2026");
    expect(res.status).toBe(201);
    const { data } = await json<{ data: Sel }>(res);
    expect(data).toMatchObject({
      selector: "mail2026",
      host: `mail2026._domainkey.${domain.name}`,
      source: "manual",
      status: "active",
      health: "pass",
      record: key.dns.value,
      rotations: 0,
      missing_since: null,
      reports: null,
      key: { type: "ed25519", bits: 256, fingerprint: key.fingerprint, testing: false, age_days: 0, age_bucket: "under_6_months" },
    });
    expect(data.history).toEqual([expect.objectContaining({ fingerprint: key.fingerprint, retired_at: null, retired_reason: null, record: key.dns.value })]);
    expect((await eventsOf(svc, domain.id)).map((e) => [e.type, e.data.source])).toEqual([["dkim.selector.added", "manual"]]);

    const again = await add(domain.id, "mail2026");
    expect(again.status).toBe(200);
    expect((await json<{ data: Sel }>(again)).data).toMatchObject({ selector: "mail2026", status: "active" });
    expect(await eventsOf(svc, domain.id)).toHaveLength(1);
  });

  it("marks an unpublished selector missing, and leaves it pending on a DNS temperror", async () => {
    const domain = await insertDomain(svc, team.id);
    stub = installDohStub({});
    const missing = await json<{ data: Sel }>(await add(domain.id, "nokey"));
    expect(missing.data).toMatchObject({ status: "missing", health: "fail", key: null, record: null });
    expect(missing.data.missing_since).toEqual(expect.any(String));
    stub.setFault(`flaky._domainkey.${domain.name}`, "TXT", "servfail");
    const res = await add(domain.id, "flaky");
    expect(res.status).toBe(201);
    expect((await json<{ data: Sel }>(res)).data).toMatchObject({ status: "pending", missing_since: null });
    expect(await eventsOf(svc, domain.id), "no event for a missing or unreachable manual selector").toEqual([]);
  });

  it("raises one dkim alert for a High finding of a manually added selector", async () => {
    const domain = await insertDomain(svc, team.id);
    const key = await newKey(domain.name, "weak");
    stub = installDohStub({ [`weak._domainkey.${domain.name}`]: { TXT: [key.dns.value.replace("k=ed25519;", "k=ed25519; h=sha1;")] } });
    const { data } = await json<{ data: Sel }>(await add(domain.id, "weak"));
    expect(data).toMatchObject({ status: "active", health: "fail" });
    const alerts = await svc.db.select().from(alertsTable).where(eq(alertsTable.domainId, domain.id));
    expect(alerts).toEqual([expect.objectContaining({ kind: "dkim", subject: "dkim:weak", severity: "High", resolvedAt: null })]);
    expect((await eventsOf(svc, domain.id)).map((e) => e.type).sort()).toEqual(["alert.created", "dkim.selector.added"]);
  });

  it("validates the selector (422) and the body", async () => {
    const domain = await insertDomain(svc, team.id);
    for (const bad of ["bad..name", "_x", "a b", "", 7]) {
      const res = await add(domain.id, bad);
      expect(res.status, String(bad)).toBe(422);
      expect(await json<{ code: string; errors: Record<string, string[]> }>(res)).toMatchObject({
        code: "validation_failed",
        errors: { selector: expect.any(Array) },
      });
    }
    expect(
      (await call(`${base(domain.id)}/selectors`, { method: "POST", token: team.full, rawBody: "{", headers: { "content-type": "application/json" } })).status,
    ).toBe(400);
    expect(
      (await call(`${base(domain.id)}/selectors`, { method: "POST", token: team.full, rawBody: "selector=x", headers: { "content-type": "text/plain" } }))
        .status,
    ).toBe(415);
  });

  it("security: 401 without a token, 403 read-only, 404 for another team's or an unknown domain", async () => {
    const domain = await insertDomain(svc, team.id);
    expect((await call(`${base(domain.id)}/selectors`, { method: "POST", body: { selector: "x" } })).status).toBe(401);
    const ro = await add(domain.id, "x", team.readOnly);
    expect(ro.status).toBe(403);
    expect((await json<{ code: string }>(ro)).code).toBe("forbidden");
    expect((await add(domain.id, "x", other.full)).status).toBe(404);
    expect((await add(99_999_999, "x")).status).toBe(404);
    expect((await call("/api/v1/domains/abc/dkim/selectors", { method: "POST", token: team.full, body: { selector: "x" } })).status).toBe(404);
  });
});

describe("GET /domains/{domain}/dkim", () => {
  it("reads only its own domain's report object: another domain's rows never show", async () => {
    const domain = await insertDomain(svc, team.id);
    const other = await insertDomain(svc, team.id);
    await addReport(other.id, [{ d: domain.name, s: "elsewhere", result: "pass", ip: "198.51.100.9", n: 40 }]);
    const res = await call(`${base(domain.id)}?days=7`, { token: team.full });
    expect(res.status).toBe(200);
    const { data } = await json<{ data: { signers: unknown[]; summary: { messages_in_window?: number } } }>(res);
    expect(data.signers).toEqual([]);
  });

  it("returns summary, selectors with keys, signers from DMARC reports and findings", async () => {
    const domain = await insertDomain(svc, team.id);
    const key = await newKey(domain.name, "s1", "rsa-1024");
    const zone: StubZone = { [`s1._domainkey.${domain.name}`]: { TXT: [key.dns.value] } };
    stub = installDohStub(zone);
    expect((await add(domain.id, "s1")).status).toBe(201);
    expect((await add(domain.id, "gone")).status).toBe(201);
    await addReport(domain.id, [
      { d: domain.name, s: "s1", result: "pass", ip: "192.0.2.1", n: 10 },
      { d: domain.name, s: "s1", result: "fail", ip: "192.0.2.2", n: 2 },
      { d: domain.name, s: "gone", result: "fail", ip: "192.0.2.3", n: 4 },
      { d: `mail.${domain.name}`, s: "k1", result: "pass", ip: "192.0.2.4", n: 5 },
      { d: "sendgrid.net", s: "s1", result: "pass", ip: "192.0.2.5", n: 7 },
    ]);

    const res = await call(base(domain.id), { token: team.readOnly });
    expect(res.status).toBe(200);
    const { data } = await json<{ data: Sel }>(res);
    expect(data.domain).toBe(domain.name);
    expect(data.days).toBe(30);
    expect(data.summary).toMatchObject({
      selectors: 2,
      active: 1,
      missing: 1,
      pending: 0,
      revoked: 0,
      invalid: 0,
      rotations_in_window: 0,
      oldest_key_days: 0,
      stale_keys: 0,
      health: { pass: 0, warning: 1, fail: 1 },
      age_buckets: { under_6_months: 1, over_6_months: 0, over_2_years: 0 },
      messages_in_window: 28,
    });
    const s1 = data.selectors.find((s: Sel) => s.selector === "s1");
    expect(s1).toMatchObject({
      status: "active",
      health: "warning",
      key: { type: "rsa", bits: 1024, age_bucket: "under_6_months" },
      reports: { messages: 12, pass: 10, fail: 2 },
    });
    expect(s1.reports.sources.sort()).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect(s1.issues.map((f: Sel) => f.rule)).toEqual(["dkim.key.weak"]);
    expect(data.signers).toEqual([
      { domain: domain.name, aligned: true, messages: 16, pass: 10, fail: 6, sources: expect.any(Array) },
      { domain: "sendgrid.net", aligned: false, messages: 7, pass: 7, fail: 0, sources: ["192.0.2.5"] },
      { domain: `mail.${domain.name}`, aligned: true, messages: 5, pass: 5, fail: 0, sources: ["192.0.2.4"] },
    ]);
    expect(data.findings.map((f: Sel) => [f.rule, f.severity])).toEqual([
      ["dkim.key.weak", "Medium"],
      ["dkim.selector.missing_but_used", "High"],
    ]);
  });

  it("validates days (1 to 365) and defaults to 30", async () => {
    const domain = await insertDomain(svc, team.id);
    for (const days of ["0", "366", "-1", "1.5", "abc"]) expect((await call(`${base(domain.id)}?days=${days}`, { token: team.full })).status, days).toBe(422);
    for (const days of [1, 365]) {
      const res = await call(`${base(domain.id)}?days=${days}`, { token: team.full });
      expect(res.status).toBe(200);
      expect((await json<{ data: Sel }>(res)).data).toMatchObject({
        days,
        selectors: [],
        signers: [],
        findings: [],
        summary: { selectors: 0, oldest_key_days: null },
      });
    }
  });

  it("security: 401 without a token, 404 for another team's domain", async () => {
    const domain = await insertDomain(svc, team.id);
    expect((await call(base(domain.id))).status).toBe(401);
    expect((await call(base(domain.id), { token: other.full })).status).toBe(404);
    expect((await call(base(domain.id), { token: other.readOnly })).status).toBe(404);
  });
});

describe("GET /domains/{domain}/dkim/selectors/{selector}", () => {
  it("returns the selector with key history and report evidence in the window", async () => {
    const domain = await insertDomain(svc, team.id);
    const key = await newKey(domain.name, "k1");
    stub = installDohStub({ [`k1._domainkey.${domain.name}`]: { TXT: [key.dns.value] } });
    await add(domain.id, "k1");
    let res = await call(`${base(domain.id)}/selectors/K1?days=7`, { token: team.readOnly });
    expect(res.status).toBe(200);
    let data = (await json<{ data: Sel }>(res)).data;
    expect(data).toMatchObject({
      selector: "k1",
      reports: null,
      history: [{ fingerprint: key.fingerprint, type: "ed25519", bits: 256, retired_reason: null }],
    });
    await addReport(domain.id, [{ d: domain.name.toUpperCase(), s: "K1", result: "pass", ip: "198.51.100.7", n: 3 }]);
    res = await call(`${base(domain.id)}/selectors/k1`, { token: team.full });
    data = (await json<{ data: Sel }>(res)).data;
    expect(data.reports).toEqual({ messages: 3, pass: 3, fail: 0, sources: ["198.51.100.7"] });
  });

  it("404 for an unknown selector or another team's domain; 422 for days out of range; 401 without a token", async () => {
    const domain = await insertDomain(svc, team.id);
    await svc.db.insert(dkimSelectors).values({ domainId: domain.id, selector: "x1", source: "manual", status: "pending" });
    expect((await call(`${base(domain.id)}/selectors/nope`, { token: team.full })).status).toBe(404);
    expect((await call(`${base(domain.id)}/selectors/x1`, { token: other.full })).status).toBe(404);
    expect((await call(`${base(domain.id)}/selectors/x1?days=366`, { token: team.full })).status).toBe(422);
    expect((await call(`${base(domain.id)}/selectors/x1?days=0`, { token: team.full })).status).toBe(422);
    expect((await call(`${base(domain.id)}/selectors/x1`)).status).toBe(401);
  });
});

describe("DELETE /domains/{domain}/dkim/selectors/{selector}", () => {
  it("removes a manual unpublished selector (204); refuses published or discovered ones (409)", async () => {
    const domain = await insertDomain(svc, team.id);
    await svc.db.insert(dkimSelectors).values([
      { domainId: domain.id, selector: "pend", source: "manual", status: "pending" },
      { domainId: domain.id, selector: "miss", source: "manual", status: "missing" },
      { domainId: domain.id, selector: "live", source: "manual", status: "active" },
      { domainId: domain.id, selector: "rev", source: "manual", status: "revoked" },
      { domainId: domain.id, selector: "disc", source: "discovered", status: "missing" },
      { domainId: domain.id, selector: "rep", source: "dmarc", status: "pending" },
      { domainId: domain.id, selector: "badrec", source: "manual", status: "invalid", record: "v=DKIM1; k=rsa; p=not-base64!" },
      { domainId: domain.id, selector: "dangling", source: "manual", status: "invalid", record: null },
    ]);
    const del = (s: string, token = team.full) => call(`${base(domain.id)}/selectors/${s}`, { method: "DELETE", token });
    expect((await del("pend")).status).toBe(204);
    expect((await del("miss")).status).toBe(204);
    expect((await del("dangling")).status, "invalid with nothing published (a dangling CNAME)").toBe(204);
    expect((await call(`${base(domain.id)}/selectors/pend`, { token: team.full })).status).toBe(404);
    expect((await del("rep")).status, "a learned selector that is not published can be removed").toBe(204);
    for (const s of ["live", "rev", "disc", "badrec"]) {
      const res = await del(s);
      expect(res.status, s).toBe(409);
      expect((await json<{ code: string }>(res)).code).toBe("conflict");
    }
    expect((await del("nope")).status).toBe(404);
    expect((await del("live", team.readOnly)).status).toBe(403);
    expect((await del("live", other.full)).status).toBe(404);
    expect((await call(`${base(domain.id)}/selectors/live`, { method: "DELETE" })).status).toBe(401);
    expect((await call(`${base(domain.id)}/selectors/live`, { token: team.full })).status).toBe(200);
  });
});
