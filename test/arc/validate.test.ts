// validateArc() beyond the shared suite's cv: the report (sets, broken_at, oldest_pass), DNS
// failures (never "fail"), and the cap on ARC Sets. Messages come from the shared ARC suite
// (test/fixtures/arc/README.md), so every signature in them is a third party's.
import { describe, expect, it } from "vitest";
import { MAX_ARC_SETS, validateArc } from "../../src/core/arc";
import suite from "../fixtures/arc/validation-tests.json";
import { FakeResolver } from "../support/fake-resolver";

interface Scenario {
  txt_records: Record<string, string>;
  tests: Array<{ name: string; message: string }>;
}
const scenarios = (suite as unknown as { scenarios: Scenario[] }).scenarios;
const find = (name: string) => {
  for (const s of scenarios) {
    const t = s.tests.find((x) => x.name === name);
    if (t) return { message: t.message, records: s.txt_records };
  }
  throw new Error(`no suite case ${name}`);
};
const resolver = (records: Record<string, string>) => new FakeResolver(Object.fromEntries(Object.entries(records).map(([k, v]) => [k, { TXT: [v] }])));
const NOW = new Date("2018-11-23T00:00:00Z");
const KEY = "dummy._domainkey.example.org";

describe("validateArc report", () => {
  it("reports every set of a passing chain, oldest first, with the AAR's authserv-id", async () => {
    const { message, records } = find("cv_pass_i3_1");
    const r = await validateArc(message, { resolver: resolver(records), now: NOW });
    expect(r).toMatchObject({ result: "pass", cv: "pass", broken_at: null, oldest_pass: 1, reason: null });
    expect(r.sets.map((s) => s.instance)).toEqual([1, 2, 3]);
    for (const s of r.sets) {
      expect(s.ams).toMatchObject({ result: "pass", domain: "example.org", selector: "dummy" });
      expect(s.as.result).toBe("pass");
      expect(s.aar.authserv_id).toBe("lists.example.org");
      expect(s.aar.results).toMatch(/^spf=pass smtp\.mfrom=jqd@d1\.example;/);
    }
    expect(r.sets.map((s) => s.as.cv)).toEqual(["none", "pass", "pass"]);
  });

  it("passes a chain whose older AMS broke and says where the AMSs stop validating (RFC 8617 §5.2 step 5)", async () => {
    const { message, records } = find("cv_pass_i2_1_ams1_invalid");
    const r = await validateArc(message, { resolver: resolver(records), now: NOW });
    expect(r).toMatchObject({ cv: "pass", oldest_pass: 2 });
    expect(r.sets[0]?.ams.result).toBe("fail");
    expect(r.sets[1]?.ams.result).toBe("pass");
  });

  it("names the set whose seal failed", async () => {
    const { message, records } = find("cv_fail_i2_as1_invalid");
    const r = await validateArc(message, { resolver: resolver(records), now: NOW });
    expect(r).toMatchObject({ result: "fail", cv: "fail", broken_at: 1, oldest_pass: null });
    expect(r.sets[0]?.as.result).toBe("fail");
    expect(r.reason).toMatch(/ARC-Seal i=1/);
  });

  it("names the set where the structure broke", async () => {
    const { message, records } = find("cv_fail_i2_as1_pass");
    const r = await validateArc(message, { resolver: resolver(records), now: NOW });
    expect(r).toMatchObject({ cv: "fail", broken_at: 1 });
    expect(r.reason).toMatch(/cv=pass; it must be none/);
  });

  it("says none, with no sets, for a message without ARC header fields", async () => {
    const { message, records } = find("cv_base1");
    const r = await validateArc(message.replace(/\n/g, "\r\n"), { resolver: resolver(records), now: NOW });
    expect(r).toEqual({ result: "none", cv: "none", sets: [], broken_at: null, oldest_pass: null, reason: null, warnings: [] });
  });
});

describe("validateArc and DNS failures", () => {
  it("answers temperror, never fail, when the key lookup fails temporarily", async () => {
    const { message, records } = find("cv_pass_i2_1");
    const dns = resolver(records);
    dns.faults.set(`${KEY} TXT`, "temperror");
    const r = await validateArc(message, { resolver: dns, now: NOW });
    expect(r).toMatchObject({ result: "temperror", cv: null, broken_at: null, oldest_pass: null });
    expect(r.reason).toMatch(/failed temporarily/);
    expect(r.sets[1]?.ams.result).toBe("temperror");
  });

  it("still answers fail when a signature fails for good while another key lookup fails temporarily", async () => {
    // The AMS and the seals use different keys here: the AMS key answers, the seal keys fail.
    const { message, records } = find("ams_as_diff_s_d");
    const dns = resolver(records);
    const ok = await validateArc(message, { resolver: dns, now: NOW });
    expect(ok.cv).toBe("pass");
    const sealKey = `${ok.sets[0]?.as.selector}._domainkey.${ok.sets[0]?.as.domain}`;
    const amsKey = `${ok.sets[0]?.ams.selector}._domainkey.${ok.sets[0]?.ams.domain}`;
    expect(sealKey).not.toBe(amsKey);
    dns.faults.set(`${sealKey} TXT`, "temperror");
    expect((await validateArc(message, { resolver: dns, now: NOW })).result).toBe("temperror");
    const broken = message.replace("Subject: Example 1", "Subject: Example 1 (changed)");
    const r = await validateArc(broken, { resolver: dns, now: NOW });
    expect(r).toMatchObject({ result: "fail", cv: "fail", broken_at: 1 });
  });
});

describe("validateArc limits", () => {
  it(`refuses more than ${MAX_ARC_SETS} ARC Sets with cv=fail and says why`, async () => {
    const { message, records } = find("cv_pass_i1_1");
    const extra = Array.from({ length: MAX_ARC_SETS }, (_, k) => {
      const i = k + 2;
      return `ARC-Seal: i=${i}; cv=pass; a=rsa-sha256; d=example.org; s=dummy; b=AAAA\nARC-Message-Signature: i=${i}; a=rsa-sha256; d=example.org; s=dummy; h=from; bh=AAAA; b=AAAA\nARC-Authentication-Results: i=${i}; example.org; arc=pass\n`;
    }).join("");
    const dns = resolver(records);
    const r = await validateArc(extra + message, { resolver: dns, now: NOW });
    expect(r).toMatchObject({ result: "fail", cv: "fail", broken_at: MAX_ARC_SETS + 1 });
    expect(r.reason).toMatch(new RegExp(`more than ${MAX_ARC_SETS} ARC Sets`));
    // Refused before any key is looked up.
    expect(dns.queriesSent).toBe(0);
  });
});
