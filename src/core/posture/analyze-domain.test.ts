import { describe, expect, it } from "vitest";
import { FakeResolver, type Zone } from "../../../test/support/fake-resolver";
import type { HttpFetch } from "../types";
import { analyzeDomain } from "./analyze-domain";
import { diffPostures } from "./diff";

const clock = { now: () => new Date("2026-11-21T00:00:00Z") };
const POLICY = "version: STSv1\r\nmode: enforce\r\nmx: *.example.com\r\nmax_age: 604800\r\n";
const policyFetch: HttpFetch = async (input) =>
  String(input) === "https://mta-sts.example.com/.well-known/mta-sts.txt"
    ? new Response(POLICY, { headers: { "content-type": "text/plain" } })
    : new Response("not found", { status: 404 });

const good: Zone = {
  "example.com": { TXT: ["v=spf1 mx -all"], MX: [{ preference: 10, exchange: "mx1.example.com" }] },
  "mx1.example.com": { A: ["192.0.2.10"] },
  "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject; rua=mailto:d@example.com"] },
  "_mta-sts.example.com": { TXT: ["v=STSv1; id=20261101"] },
  "mta-sts.example.com": { A: ["93.184.216.34"] },
  "_smtp._tls.example.com": { TXT: ["v=TLSRPTv1; rua=mailto:tls@example.com"] },
  "default._bimi.example.com": { TXT: ["v=BIMI1; l=https://example.com/logo.svg; a=https://example.com/vmc.pem"] },
};

describe("analyzeDomain", () => {
  it("a well-configured domain scores high with every record present", async () => {
    const r = await analyzeDomain("Example.COM.", { resolver: new FakeResolver(good), fetch: policyFetch, clock });
    expect(r.domain).toBe("example.com");
    expect(r.dmarc_policy).toBe("reject");
    expect(Object.fromEntries(Object.entries(r.records).map(([k, v]) => [k, v.status]))).toEqual({
      spf: "present",
      dmarc: "present",
      bimi: "present",
      mta_sts: "present",
      tls_rpt: "present",
      mx: "present",
      // The fake resolver never sets the AD bit: an unauthenticated TLSA answer is insecure, never missing.
      dane: "insecure",
    });
    expect(r.records.mx.record).toBe("10 mx1.example.com");
    // 5 IP lists + 3 domain lists; without a DQS key the Spamhaus lists are unknown with the reason, never "not listed".
    expect(r.blacklists).toMatchObject({ listed: [], checked: 8 });
    expect(r.blacklists?.unknown.map((u) => u.list).sort()).toEqual(["Spamhaus DBL", "Spamhaus ZEN"]);
    for (const u of r.blacklists?.unknown ?? []) expect(u.reason).toContain("DNSBL_DQS_KEY");
    expect(r.findings.filter((f) => f.severity !== "Info")).toEqual([]);
    expect(r.score).toBeGreaterThanOrEqual(97);
    expect(r.grade).toBe("A+");
    expect(r.fixes).toEqual([]);
    expect(r.queries).toBeGreaterThan(10);
  });
  it("a null-MX domain is parked: inbound-only parts are not applicable", async () => {
    const r = await analyzeDomain("parked.example", {
      resolver: new FakeResolver({ "parked.example": { MX: [{ preference: 0, exchange: "" }], TXT: ["v=spf1 -all"] } }),
      fetch: policyFetch,
      clock,
      dnsbl: false,
    });
    expect(r.records.mx.null_mx).toBe(true);
    expect(r.findings.map((f) => f.rule)).not.toContain("mta_sts.missing");
    expect(r.fixes).toMatchObject([{ host: "_dmarc.parked.example", value: "v=DMARC1; p=reject; sp=reject" }]);
  });
  it("a DMARC temperror is unknown: not missing, no fix, no diff", async () => {
    const res = new FakeResolver(good);
    res.faults.set("_dmarc.example.com TXT", "temperror");
    const ok = await analyzeDomain("example.com", { resolver: new FakeResolver(good), fetch: policyFetch, clock, dnsbl: false });
    const r = await analyzeDomain("example.com", { resolver: res, fetch: policyFetch, clock, dnsbl: false });
    expect(r.records.dmarc.status).toBe("temperror");
    expect(r.fixes.filter((f) => f.host.startsWith("_dmarc"))).toEqual([]);
    expect(diffPostures(ok.snapshot, r.snapshot)).toEqual([]);
  });
  it("weakening DMARC between checks is a High diff; BIMI flags p=none", async () => {
    const weak = { ...good, "_dmarc.example.com": { TXT: ["v=DMARC1; p=none; rua=mailto:d@example.com"] } };
    const a = await analyzeDomain("example.com", { resolver: new FakeResolver(good), fetch: policyFetch, clock, dnsbl: false });
    const b = await analyzeDomain("example.com", { resolver: new FakeResolver(weak), fetch: policyFetch, clock, dnsbl: false });
    expect(diffPostures(a.snapshot, b.snapshot)).toContainEqual({ category: "dmarc", field: "p", before: "reject", after: "none", severity: "High" });
    expect(b.findings.map((f) => f.rule)).toContain("bimi.no-enforcing-dmarc");
    expect(b.score ?? 0).toBeLessThan(a.score ?? 0);
    expect(b.fixes).toMatchObject([{ host: "_dmarc.example.com", value: "v=DMARC1; p=quarantine; rua=mailto:d@example.com" }]);
  });
  it("runs the first-wave lookups concurrently", async () => {
    const inner = new FakeResolver(good);
    let inFlight = 0;
    let peak = 0;
    const slow = {
      get queriesSent() {
        return inner.queriesSent;
      },
      query: async (...a: Parameters<FakeResolver["query"]>) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return inner.query(...a);
      },
    } as FakeResolver;
    await analyzeDomain("example.com", { resolver: slow, fetch: policyFetch, clock, dnsbl: false });
    expect(peak).toBeGreaterThanOrEqual(5);
  });
  it("never throws for a malformed domain", async () => {
    const r = await analyzeDomain("not a domain!!", { resolver: new FakeResolver({}), fetch: policyFetch, clock });
    expect(r.records.mx.status).toBe("missing");
    expect(r.grade).toBe("F");
  });
});
