// Tests for DMARC parsing, the RFC 9989 §4.10 DNS Tree Walk, alignment and analysis. No real I/O.
import { describe, expect, it } from "vitest";
import { FakeResolver, type Zone } from "../../../test/support/fake-resolver";
import { aligned, treeWalkOrgDomain } from "./align";
import { analyzeDmarc, isEnforcing } from "./analyze";
import { discoverPolicy, organizationalDomain, walkTargets } from "./discover";
import { parseDmarc, type DmarcRecord } from "./parse";
import { recordFindings } from "./rules";

const parse = (t: string): DmarcRecord => {
  const r = parseDmarc(t);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};
const rules = (fs: { rule: string }[]) => fs.map((f) => f.rule);

describe("parseDmarc", () => {
  it("requires v=DMARC1 first, exactly", () => {
    expect(parseDmarc("p=reject; v=DMARC1").ok).toBe(false);
    expect(parseDmarc("v=dmarc1; p=reject").ok).toBe(false);
    expect(parseDmarc("v=DMARC1;p=reject").ok).toBe(true);
    expect(parseDmarc("v = DMARC1 ; p=reject").ok).toBe(true);
  });
  it("applies defaults: sp from p, np from sp else p (RFC 9989 §5.3)", () => {
    expect(parse("v=DMARC1; p=reject").effective).toEqual({ p: "reject", sp: "reject", np: "reject" });
    expect(parse("v=DMARC1; p=reject; sp=quarantine").effective).toEqual({ p: "reject", sp: "quarantine", np: "quarantine" });
    expect(parse("v=DMARC1; p=none; np=reject").effective).toEqual({ p: "none", sp: "none", np: "reject" });
    expect(parse("v=DMARC1; p=reject")).toMatchObject({ adkim: "r", aspf: "r", t: false, psd: "u" });
  });
  it("treats a missing p as none only with a valid rua (RFC 9989 §4.10.1)", () => {
    expect(parse("v=DMARC1; rua=mailto:d@example.com")).toMatchObject({ p: null, policyApplies: true, effective: { p: "none" } });
    expect(parse("v=DMARC1; adkim=s").policyApplies).toBe(false);
    expect(parse("v=DMARC1; p=rejct; rua=mailto:d@example.com")).toMatchObject({ p: null, invalidPolicyTags: [{ name: "p", value: "rejct" }] });
  });
  describe("an invalid sp or np sets the policy aside (RFC 7489 §6.6.3 step 6, RFC 9989 §4.10)", () => {
    it("acts as p=none when rua holds a valid URI, naming the tag with a paste-ready fix", async () => {
      const r = parse("v=DMARC1; p=reject; sp=bogus; rua=mailto:d@example.com");
      expect(r).toMatchObject({ p: "reject", sp: null, policyApplies: true, effective: { p: "none", sp: "none", np: "none" } });
      expect(isEnforcing(r)).toBe(false);
      const finding = recordFindings(r, "example.com").find((f) => f.rule === "dmarc.invalid-policy-tag");
      expect(finding?.description).toMatch(/sp=bogus.*p=none.*p=reject does not apply/);
      expect(finding?.fix).toBe("v=DMARC1; p=reject; rua=mailto:d@example.com");
      const a = await analyzeDmarc(
        "example.com",
        new FakeResolver({ "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject; sp=bogus; rua=mailto:d@example.com"] } }),
      );
      expect(a.policy, "the policy receivers apply").toBe("none");
    });
    it("applies no DMARC without a valid rua; np works the same way", () => {
      expect(parse("v=DMARC1; p=reject; sp=bogus")).toMatchObject({ policyApplies: false });
      expect(parse("v=DMARC1; p=quarantine; np=nope; rua=mailto:d@example.com")).toMatchObject({ policyApplies: true, effective: { p: "none" } });
      expect(parse("v=DMARC1; p=reject; np=nope").policyApplies).toBe(false);
      const none = recordFindings(parse("v=DMARC1; p=reject; np=nope"), "example.com").find((f) => f.rule === "dmarc.invalid-policy-tag");
      expect(none?.description).toMatch(/no DMARC at all/);
    });
  });
  describe("tag-list edge cases (RFC 9989 §5.4)", () => {
    it("allows whitespace around = and ;, a trailing ;, empty parts and any case in names", () => {
      expect(parse("v=DMARC1 ;P = Reject ; SP=none;;rua=mailto:d@example.com;")).toMatchObject({
        p: "reject",
        sp: "none",
        rua: [{ address: "d@example.com" }],
      });
    });
    it("ignores an empty value of an enumerated tag with a finding, and a part without =", () => {
      const r = parse("v=DMARC1; p=reject; adkim=; junk");
      expect([r.adkim, rules(r.findings)]).toEqual(["r", ["dmarc.syntax", "dmarc.invalid-value"]]);
    });
  });
  it("reports duplicate and unknown tags", () => {
    const r = parse("v=DMARC1; p=none; p=reject; foo=bar");
    expect(r.p).toBe("none");
    expect(rules(r.findings)).toEqual(["dmarc.duplicate-tag", "dmarc.unknown-tag"]);
  });
  it("parses URI lists, the obsolete !size and the removed pct/rf/ri", () => {
    const r = parse(
      "v=DMARC1; p=quarantine; pct=25; rf=afrf; ri=3600; rua=mailto:a@example.com!10m, mailto:b@reports.example.net; ruf=mailto:f@example.com; fo=0:1:d",
    );
    expect(r.rua.map((u) => [u.domain, u.size])).toEqual([
      ["example.com", "10m"],
      ["reports.example.net", null],
    ]);
    expect([r.pct, r.rf, r.ri, r.fo]).toEqual([25, "afrf", 3600, ["0", "1", "d"]]);
  });
  it("isEnforcing needs quarantine/reject, sp not none, pct 100 (BIMI)", () => {
    expect(isEnforcing(parse("v=DMARC1; p=reject"))).toBe(true);
    expect(isEnforcing(parse("v=DMARC1; p=reject; sp=none"))).toBe(false);
    expect(isEnforcing(parse("v=DMARC1; p=quarantine; pct=50"))).toBe(false);
    expect(isEnforcing(parse("v=DMARC1; p=none"))).toBe(false);
  });
});

describe("RFC 9989 §4.10 DNS Tree Walk", () => {
  it("shortens names of 8+ labels to 7 after the first query: the RFC's eight-query example", () => {
    expect(walkTargets("a.b.c.d.e.f.g.h.i.j.mail.example.com").map((d) => `_dmarc.${d}`)).toEqual([
      "_dmarc.a.b.c.d.e.f.g.h.i.j.mail.example.com",
      "_dmarc.g.h.i.j.mail.example.com",
      "_dmarc.h.i.j.mail.example.com",
      "_dmarc.i.j.mail.example.com",
      "_dmarc.j.mail.example.com",
      "_dmarc.mail.example.com",
      "_dmarc.example.com",
      "_dmarc.com",
    ]);
    expect(walkTargets("a.mail.example.com")).toEqual(["a.mail.example.com", "mail.example.com", "example.com", "com"]);
  });

  it("finds the policy at the author domain with one query", async () => {
    const res = new FakeResolver({ "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject"] } });
    const d = await discoverPolicy("example.com", res);
    expect([d.status, d.policyDomain, d.inherited, d.queries]).toEqual(["found", "example.com", false, 1]);
  });

  it("inherits the organizational domain's record, walking to the TLD", async () => {
    const res = new FakeResolver({ "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject; sp=quarantine"] } });
    const d = await discoverPolicy("a.mail.example.com", res);
    expect([d.status, d.policyDomain, d.inherited, d.orgDomain, d.queries]).toEqual(["found", "example.com", true, "example.com", 4]);
    expect(res.log).toContain("_dmarc.com TXT");
  });

  it("uses a PSD record (psd=y) at the TLD, the org domain being one label below (§4.10.2 rule 2)", async () => {
    const res = new FakeResolver({ "_dmarc.example": { TXT: ["v=DMARC1; p=reject; psd=y"] } });
    const d = await discoverPolicy("a.mail.corp.example", res);
    expect([d.status, d.policyDomain, d.inherited, d.orgDomain]).toEqual(["found", "example", true, "corp.example"]);
    const org = await organizationalDomain("a.mail.corp.example", res);
    expect(org.ok && org.value.orgDomain).toBe("corp.example");
  });

  it("selects the record with the fewest labels, or stops at psd=n (§4.10.2 rules 1 and 3)", async () => {
    const zone: Zone = { "_dmarc.mail.example.com": { TXT: ["v=DMARC1; p=none"] }, "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject"] } };
    const org = await organizationalDomain("a.mail.example.com", new FakeResolver(zone));
    expect(org.ok && org.value.orgDomain).toBe("example.com");
    zone["_dmarc.mail.example.com"] = { TXT: ["v=DMARC1; p=none; psd=n"] };
    const org2 = await organizationalDomain("a.mail.example.com", new FakeResolver(zone));
    expect(org2.ok && org2.value.orgDomain).toBe("mail.example.com");
    const none = await organizationalDomain("a.example.org", new FakeResolver({}));
    expect(none.ok && none.value.orgDomain).toBe("a.example.org");
  });

  it("spends at most 8 queries on a very long name", async () => {
    const res = new FakeResolver({});
    const d = await discoverPolicy("l1.l2.l3.l4.l5.l6.l7.l8.l9.l10.l11.l12.example.com", res);
    expect([d.status, d.queries, res.queriesSent]).toEqual(["none", 8, 8]);
  });

  it("discards multiple records (no policy from that name)", async () => {
    const d = await discoverPolicy("example.com", new FakeResolver({ "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject", "v=DMARC1; p=none"] } }));
    expect(d.status).toBe("none");
  });

  it("never reads a temperror on _dmarc as 'no DMARC'", async () => {
    const res = new FakeResolver({ "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject"] } });
    res.faults.set("_dmarc.a.example.com TXT", "temperror");
    const d = await discoverPolicy("a.example.com", res);
    expect(d.status).toBe("temperror");
    expect(d.temperror?.name).toBe("_dmarc.a.example.com");
    expect((await organizationalDomain("a.example.com", res)).ok).toBe(false);
    const a = await analyzeDmarc("a.example.com", res);
    expect(rules(a.findings)).toEqual(["dmarc.temperror"]);
  });
});

describe("alignment", () => {
  const zone: Zone = { "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject"] } };
  it("strict needs identical names; relaxed compares organizational domains", async () => {
    const org = treeWalkOrgDomain(new FakeResolver(zone));
    expect(await aligned("mail.example.com", "example.com", "s", org)).toBe("unaligned");
    expect(await aligned("Example.COM.", "example.com", "s", org)).toBe("aligned");
    expect(await aligned("mail.example.com", "news.example.com", "r", org)).toBe("aligned");
    expect(await aligned("example.net", "example.com", "r", org)).toBe("unaligned");
    const broken = new FakeResolver(zone);
    broken.faults.set("_dmarc.mail.example.com TXT", "temperror");
    expect(await aligned("mail.example.com", "example.com", "r", treeWalkOrgDomain(broken))).toBe("temperror");
  });
});

describe("analyzeDmarc", () => {
  const reportsZone: Zone = {
    "reports.example.net": { MX: [{ preference: 10, exchange: "mx.example.net" }] },
    "_dmarc.example.net": { TXT: ["v=DMARC1; p=reject"] },
  };

  it("flags a missing external-destination authorization and accepts the wildcard", async () => {
    const zone: Zone = { ...reportsZone, "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject; rua=mailto:d@reports.example.net"] } };
    const missing = await analyzeDmarc("example.com", new FakeResolver(zone));
    expect(missing.findings.find((f) => f.rule === "dmarc.external-auth-missing")?.fix).toBe('example.com._report._dmarc.reports.example.net TXT "v=DMARC1"');
    const ok = await analyzeDmarc("example.com", new FakeResolver({ ...zone, "*._report._dmarc.reports.example.net": { TXT: ["v=DMARC1"] } }));
    expect(rules(ok.findings)).toEqual([]);
    expect(ok.policy).toBe("reject");
  });

  it("reports multiple records, apex records, unrelated TXT and no DMARC", async () => {
    const a = await analyzeDmarc(
      "example.com",
      new FakeResolver({
        "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject", "v=DMARC1; p=none", "hello"] },
        "example.com": { TXT: ["v=DMARC1; p=reject"] },
      }),
    );
    expect(rules(a.findings)).toEqual(["dmarc.multiple-records", "dmarc.unrelated-txt", "dmarc.apex-record", "dmarc.none"]);
    expect(a.policy).toBeNull();
  });

  it("warns on p=none, sp=none with reject, pct, fo and !size, and suggests an RFC 9989 record", async () => {
    const zone: Zone = {
      ...reportsZone,
      "_dmarc.example.com": { TXT: ["v=DMARC1; sp=none; p=reject; pct=0; ri=3600; fo=0:1; rua=mailto:d@example.com!10m"] },
      "example.com": { MX: [{ preference: 1, exchange: "mx.example.com" }] },
    };
    const a = await analyzeDmarc("example.com", new FakeResolver(zone));
    expect(rules(a.findings)).toEqual(
      expect.arrayContaining([
        "dmarc.p-not-second",
        "dmarc.sp-none",
        "dmarc.pct-partial",
        "dmarc.ri-removed",
        "dmarc.uri-size-obsolete",
        "dmarc.fo-without-ruf",
        "dmarc.fo-redundant",
      ]),
    );
    expect(a.fix).toBe("v=DMARC1; p=reject; sp=none; t=y; pct=0; rua=mailto:d@example.com");
    const none = await analyzeDmarc("example.com", new FakeResolver({ "_dmarc.example.com": { TXT: ["v=DMARC1; p=none"] } }));
    expect(rules(none.findings)).toEqual(["dmarc.policy-none", "dmarc.rua-missing"]);
  });

  it("uses sp for an inherited policy and flags a report domain without MX", async () => {
    const a = await analyzeDmarc(
      "shop.example.com",
      new FakeResolver({ "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject; sp=quarantine; rua=mailto:d@example.com"] } }),
    );
    expect([a.policy, a.discovery.inherited]).toEqual(["quarantine", true]);
    expect(rules(a.findings)).toEqual(["dmarc.inherited", "dmarc.report-domain-no-mx"]);
  });
});
