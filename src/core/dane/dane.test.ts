// DANE part against the RFC 8484 stub: TLSA at _25._tcp.<mx>, trusted only with the AD bit (RFC 7672 §2.2).
import { describe, expect, it } from "vitest";
import { installDohStub, type StubRecords, type StubZone } from "../../../test/support/doh-stub";
import { DohResolver, globalFetch } from "../dns/doh-resolver";
import { diffPostures } from "../posture/diff";
import { analyzeDomain } from "../posture/analyze-domain";
import type { HttpFetch } from "../types";
import { unusableReason } from "./tlsa";

const EP = "https://dns.test/dns-query";
const clock = { now: () => new Date("2026-11-21T00:00:00Z") };
const SHA256 = "8cb0fc6c527506a053f4f14c8464bebbd6dede2738d11468dd953d7d6a3021f1";
const TLSA = "_25._tcp.mx1.example.com";

const policy = (mode: string) => `version: STSv1\r\nmode: ${mode}\r\nmx: mx1.example.com\r\nmax_age: 604800\r\n`;
const zone = (tlsa: StubRecords | "nxdomain", mode = "enforce"): { zone: StubZone; fetch: HttpFetch } => ({
  zone: {
    "example.com": { TXT: ["v=spf1 mx -all"], MX: [{ preference: 10, exchange: "mx1.example.com" }] },
    "mx1.example.com": { A: ["192.0.2.10"] },
    "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject; rua=mailto:d@example.com"] },
    "_mta-sts.example.com": { TXT: ["v=STSv1; id=20261101"] },
    "mta-sts.example.com": { A: ["93.184.216.34"] },
    "_smtp._tls.example.com": { TXT: ["v=TLSRPTv1; rua=mailto:tls@example.com"] },
    [TLSA]: tlsa,
  },
  fetch: async (input) =>
    String(input) === "https://mta-sts.example.com/.well-known/mta-sts.txt"
      ? new Response(policy(mode), { headers: { "content-type": "text/plain" } })
      : new Response("not found", { status: 404 }),
});

async function analyze(tlsa: StubRecords | "nxdomain", mode = "enforce", fault?: "servfail") {
  const z = zone(tlsa, mode);
  const stub = installDohStub(z.zone);
  if (fault) stub.setFault(TLSA, "TLSA", fault);
  const resolver = new DohResolver({ endpoints: [EP], fetch: globalFetch, timeoutMs: 200 });
  const r = await analyzeDomain("example.com", { resolver, fetch: z.fetch, clock, dnsbl: false });
  stub.restore();
  return r;
}
const rules = (r: Awaited<ReturnType<typeof analyze>>) => r.findings.filter((f) => f.category === "dane").map((f) => f.rule);

describe("DANE part", () => {
  it("an authenticated denial is missing, carries no weight and raises nothing", async () => {
    const none = await analyze({ ad: true });
    const absent = await analyze({ ad: true, TXT: [] });
    expect(none.records.dane).toMatchObject({ status: "missing", host: TLSA, record: null, hosts: [{ host: "mx1.example.com", state: "none" }] });
    expect(rules(none)).toEqual([]);
    expect(none.score).toBe(absent.score);
    expect(none.fixes).toEqual([]);
  });
  it("a DNSSEC-authenticated DANE-EE record is present and earns its weight", async () => {
    const r = await analyze({ ad: true, TLSA: [{ usage: 3, selector: 1, matchingType: 1, data: SHA256 }] });
    expect(r.records.dane).toMatchObject({ status: "present", record: `mx1.example.com 3 1 1 ${SHA256}` });
    expect(r.records.dane.hosts[0]?.records[0]).toMatchObject({ usable: true, problem: null });
    expect(rules(r)).toEqual([]);
    const without = await analyze({ ad: true });
    expect(r.score ?? 0).toBeGreaterThanOrEqual(without.score ?? 0);
  });
  it("only PKIX usages (0/1) are unusable for SMTP: invalid, with a High finding and the DANE-EE record to publish", async () => {
    const r = await analyze({
      ad: true,
      TLSA: [
        { usage: 1, selector: 1, matchingType: 1, data: SHA256 },
        { usage: 0, selector: 0, matchingType: 1, data: SHA256 },
      ],
    });
    expect(r.records.dane.status).toBe("invalid");
    const f = r.findings.find((x) => x.rule === "dane.no-usable-tlsa");
    expect(f).toMatchObject({ category: "dane", severity: "High" });
    expect(f?.description).toContain("PKIX-EE");
    expect(f?.fix).toContain("TLSA 3 1 1");
  });
  it("TLSA fields are checked against RFC 6698: digest length, undefined selector and matching type", () => {
    expect(unusableReason({ usage: 3, selector: 1, matchingType: 1, data: SHA256 })).toBeNull();
    expect(unusableReason({ usage: 2, selector: 0, matchingType: 2, data: SHA256 })).toContain("64 octets");
    expect(unusableReason({ usage: 3, selector: 2, matchingType: 1, data: SHA256 })).toContain("selector 2");
    expect(unusableReason({ usage: 3, selector: 1, matchingType: 7, data: SHA256 })).toContain("matching type 7");
    expect(unusableReason({ usage: 4, selector: 1, matchingType: 1, data: SHA256 })).toContain("usage 4");
  });
  it("an answer without the AD bit is insecure, never missing: no weight, and TLSA records there are flagged", async () => {
    const r = await analyze({ TLSA: [{ usage: 3, selector: 1, matchingType: 1, data: SHA256 }] });
    expect(r.records.dane).toMatchObject({ status: "insecure", hosts: [{ state: "insecure" }] });
    expect(r.findings.find((x) => x.rule === "dane.insecure")).toMatchObject({ severity: "Medium" });
    const unsigned = await analyze("nxdomain");
    expect(unsigned.records.dane.status).toBe("insecure");
    expect(rules(unsigned)).toEqual([]);
    expect(unsigned.snapshot.dane?.status).toBe("insecure");
    const secureDenial = await analyze({ ad: true });
    expect(unsigned.score).toBe(secureDenial.score);
  });
  it("SERVFAIL on the TLSA name is temperror: unknown, no finding, and no diff against the last good check", async () => {
    const good = await analyze({ ad: true, TLSA: [{ usage: 3, selector: 1, matchingType: 1, data: SHA256 }] });
    const failed = await analyze({ ad: true, TLSA: [{ usage: 3, selector: 1, matchingType: 1, data: SHA256 }] }, "enforce", "servfail");
    expect(failed.records.dane.status).toBe("temperror");
    expect(rules(failed)).toEqual([]);
    expect(diffPostures(good.snapshot, failed.snapshot)).toEqual([]);
    expect(diffPostures(failed.snapshot, good.snapshot)).toEqual([]);
    // A real removal is a change (High: DANE protection is gone).
    const removed = await analyze({ ad: true });
    expect(diffPostures(good.snapshot, removed.snapshot)).toContainEqual({
      category: "dane",
      field: "status",
      before: "present",
      after: "missing",
      severity: "High",
    });
  });
  it("DANE next to an MTA-STS policy in testing is a Low finding; with enforce there is none", async () => {
    const tlsa = { ad: true, TLSA: [{ usage: 3, selector: 1, matchingType: 1, data: SHA256 }] };
    const testing = await analyze(tlsa, "testing");
    expect(testing.findings.find((x) => x.rule === "dane.mta-sts-testing")).toMatchObject({ category: "dane", severity: "Low" });
    expect(rules(await analyze(tlsa, "enforce"))).toEqual([]);
  });
});
