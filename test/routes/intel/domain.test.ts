import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { type DohStub, installDohStub } from "../../support/doh-stub";
import { acmeZone, allDown, policyServer } from "../../support/intel-zone";

type Body = { data: Record<string, any>; code?: string; errors?: Record<string, string[]> };

let team: TestTeam;
let stub: DohStub | null = null;
beforeAll(async () => {
  team = await makeTeam();
});
afterEach(() => vi.restoreAllMocks());

describe("GET /api/v1/intel/domain", () => {
  it("summarises a well-configured domain from live DNS", async () => {
    stub = installDohStub(acmeZone, { passthrough: policyServer });
    const res = await call("/api/v1/intel/domain?domain=ACME.example.", { token: team.full });
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data.domain).toBe("acme.example");
    expect(data.dmarc_policy).toBe("reject");
    expect(data.grade).toMatch(/^A/);
    expect(data.score).toBeGreaterThanOrEqual(90);
    expect(Object.fromEntries(Object.entries(data.records).map(([k, v]: [string, any]) => [k, v.status]))).toEqual({
      spf: "present",
      dmarc: "present",
      bimi: "present",
      mta_sts: "present",
      tls_rpt: "present",
      mx: "present",
      // The zone is not signed (the stub sets no AD bit): DANE is insecure, not missing (RFC 7672 §2.2).
      dane: "insecure",
    });
    expect(data.records.spf.record).toBe("v=spf1 include:_spf.acme.example include:spf.vendor.example ip4:198.51.100.7 -all");
    expect(data.records.mx.record).toBe("10 mx1.acme.example\n20 mx2.acme.example");
    expect(data.blacklists).toMatchObject({ status: "clean", listed: [] });
    // Spamhaus without a DQS key is unknown, never "not listed" (docs/decisions.md D105).
    expect(data.blacklists.unknown).toBeGreaterThan(0);
    expect(data.blacklists.checked).toBeGreaterThan(0);
    expect(data.fixes).toEqual([]);
    expect(Array.isArray(data.recommendations)).toBe(true);
    expect(data).not.toHaveProperty("findings");
    expect(data).not.toHaveProperty("spf");
  });

  it("full=1 returns the complete analysis: SPF tree and counts, DMARC discovery, MTA-STS policy and coverage, MX hosts, DNSBL, queries", async () => {
    stub = installDohStub(acmeZone, { passthrough: policyServer });
    const res = await call("/api/v1/intel/domain?domain=acme.example&full=1", { token: team.full });
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    // RFC 7208 §4.6.4: three includes (two at the root, one nested) are three lookups.
    expect(data.spf.lookups.total).toBe(3);
    expect(data.spf.tree.map((n: any) => [n.domain, n.via, n.depth, n.parent])).toEqual([
      ["acme.example", "root", 0, null],
      ["_spf.acme.example", "include", 1, "acme.example"],
      ["_netblocks.acme.example", "include", 2, "_spf.acme.example"],
      ["spf.vendor.example", "include", 1, "acme.example"],
    ]);
    expect(data.spf.networks.map((n: any) => n.cidr)).toEqual(expect.arrayContaining(["192.0.2.0/24", "2001:db8::/32", "203.0.113.0/24", "198.51.100.7/32"]));
    expect(data.dmarc.discovery).toMatchObject({ status: "found", policy_domain: "acme.example", inherited: false, queries: 1 });
    expect(data.dmarc.tags).toMatchObject({ p: "reject", adkim: "s", rua: ["mailto:dmarc@acme.example"] });
    expect(data.records.mta_sts.policy).toMatchObject({ status: "valid", mode: "enforce", max_age: 604800 });
    expect(data.records.mta_sts.coverage).toEqual([
      { host: "mx1.acme.example", covered: true },
      { host: "mx2.acme.example", covered: true },
    ]);
    expect(data.mta_sts.policy_text).toContain("mode: enforce");
    expect(data.records.mx.hosts.map((h: any) => [h.host, h.status, h.ipv4])).toEqual([
      ["mx1.acme.example", "ok", ["192.0.2.25"]],
      ["mx2.acme.example", "ok", ["192.0.2.26"]],
    ]);
    expect(data.blacklist_details.listed).toEqual([]);
    expect(data.blacklist_details.checked).toBe(data.blacklists.checked);
    expect(data.findings.every((f: any) => typeof f.rule === "string" && typeof f.category === "string")).toBe(true);
    expect(data.queries).toBe(stub.queries.length);
  });

  it("accepts full=true and rejects other values of full", async () => {
    stub = installDohStub(acmeZone, { passthrough: policyServer });
    const ok = await json<Body>(await call("/api/v1/intel/domain?domain=acme.example&full=true", { token: team.full }));
    expect(ok.data.spf.lookups.total).toBe(3);
    const bad = await call("/api/v1/intel/domain?domain=acme.example&full=yes", { token: team.full });
    expect(bad.status).toBe(422);
  });

  it.each([
    ["not a domain", "contains characters"],
    ["localhost", "two labels"],
    ["192.0.2.1", "IP address"],
    ["-bad.example", "hyphen"],
    [`${"a".repeat(64)}.example`, "longer than 63"],
  ])("answers 422 with errors.domain for %s", async (domain, message) => {
    stub = installDohStub(acmeZone);
    const res = await call(`/api/v1/intel/domain?domain=${encodeURIComponent(domain)}`, { token: team.full });
    expect(res.status).toBe(422);
    const body = await json<Body>(res);
    expect(body.code).toBe("validation_failed");
    expect(body.errors?.domain?.[0]).toContain(message);
    expect(stub.queries).toEqual([]);
  });

  it("answers 422 without the domain parameter", async () => {
    const res = await call("/api/v1/intel/domain", { token: team.full });
    expect(res.status).toBe(422);
    expect((await json<Body>(res)).errors).toHaveProperty("domain");
  });

  it("marks a part that could not be resolved as temperror, never missing, with no fix for it", async () => {
    stub = installDohStub(acmeZone, { passthrough: policyServer });
    stub.setFault("_dmarc.acme.example", "TXT", "servfail");
    stub.setFault("_smtp._tls.acme.example", "TXT", "garbage");
    const { data } = await json<Body>(await call("/api/v1/intel/domain?domain=acme.example&full=1", { token: team.full }));
    expect(data.records.dmarc.status).toBe("temperror");
    expect(data.records.tls_rpt.status).toBe("temperror");
    expect(data.records.spf.status).toBe("present");
    expect(data.dmarc_policy).toBeNull();
    expect(data.dmarc.discovery.status).toBe("temperror");
    expect(data.fixes.filter((f: any) => f.host.startsWith("_dmarc") || f.host.startsWith("_smtp._tls"))).toEqual([]);
    expect(data.findings.map((f: any) => f.rule)).not.toContain("dmarc.none");
    expect(data.findings.map((f: any) => f.rule)).not.toContain("tls_rpt.missing");
  });

  it("answers 503 dependency_unavailable when no resolver answers at all", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(allDown);
    const res = await call("/api/v1/intel/domain?domain=acme.example", { token: team.full });
    expect(res.status).toBe(503);
    expect((await json<Body>(res)).code).toBe("dependency_unavailable");
  });

  it("answers 503 when every name fails with SERVFAIL through the DoH stub", async () => {
    stub = installDohStub(acmeZone, { passthrough: policyServer });
    const names = [
      "acme.example",
      "_dmarc.acme.example",
      "_dmarc.example",
      "_mta-sts.acme.example",
      "_smtp._tls.acme.example",
      "default._bimi.acme.example",
      "default._bimi.example",
    ];
    for (const n of names) for (const t of ["TXT", "MX", "A", "AAAA"]) stub.setFault(n, t, "servfail");
    const res = await call("/api/v1/intel/domain?domain=acme.example", { token: team.full });
    expect(res.status).toBe(503);
  });

  it("security: no token is 401; a read-only token may read", async () => {
    stub = installDohStub(acmeZone, { passthrough: policyServer });
    expect((await call("/api/v1/intel/domain?domain=acme.example")).status).toBe(401);
    expect((await call("/api/v1/intel/domain?domain=acme.example", { token: "ea_not_a_real_token" })).status).toBe(401);
    expect((await call("/api/v1/intel/domain?domain=acme.example", { token: team.readOnly })).status).toBe(200);
  });
});
