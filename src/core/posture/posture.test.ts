import { describe, expect, it } from "vitest";
import { SEVERITIES, type Severity } from "../types";
import { diffPostures, type PostureSnapshot } from "./diff";
import { type DmarcFixFacts, dmarcFixes } from "../dmarc/part";
import { mtaStsFixes } from "../mta-sts/part";
import { nullMxFix } from "../mx/part";
import { setTag } from "../part/helpers";
import type { DnsFix, PartStatus } from "../part/types";
import { type SpfFixFacts, spfFixes } from "../spf/part";
import { tlsRptFixes } from "../tls-rpt/part";
import { buildRecommendations } from "./fixes";
import { gradeFor, scorePosture, type ScoreInput } from "./score";
import { CATEGORIES, type CategorizedFinding, type PostureCategory } from "./types";

const allPresent = Object.fromEntries(CATEGORIES.map((c) => [c, "present"])) as ScoreInput["statuses"];
const finding = (category: PostureCategory, severity: Severity, rule = `${category}.x`): CategorizedFinding => ({
  category,
  severity,
  rule,
  description: rule,
  fix: null,
});

describe("scorePosture", () => {
  it("a clean, complete posture is 100 / A+", () => expect(scorePosture({ statuses: allPresent, findings: [] })).toMatchObject({ score: 100, grade: "A+" }));
  it("missing DMARC costs its weight", () => {
    // DMARC is 30 of the weights: 30 of 105 with DANE present, 30 of 100 (exactly 70) without it.
    expect(scorePosture({ statuses: { ...allPresent, dmarc: "missing" }, findings: [] }).score).toBe(Math.round((100 * 75) / 105));
    expect(scorePosture({ statuses: { ...allPresent, dane: "not_applicable", dmarc: "missing" }, findings: [] }).score).toBe(70);
  });
  it("temperror and not_applicable parts are left out, not counted as missing", () => {
    expect(scorePosture({ statuses: { ...allPresent, dmarc: "temperror", bimi: "not_applicable" }, findings: [] }).score).toBe(100);
    expect(scorePosture({ statuses: { spf: "temperror" }, findings: [] })).toMatchObject({ score: null, grade: null });
  });
  it("per-category deductions are capped at the category weight", () => {
    const many = Array.from({ length: 10 }, () => finding("bimi", "High"));
    expect(scorePosture({ statuses: allPresent, findings: many }).categories.bimi).toMatchObject({ earned: 0, deducted: 5 });
  });
  it("Critical caps the grade at D, High keeps it below A", () => {
    expect(scorePosture({ statuses: allPresent, findings: [finding("bimi", "Critical")] }).grade).toBe("D");
    expect(scorePosture({ statuses: allPresent, findings: [finding("tls_rpt", "High")] }).grade).toBe("B");
  });
  it("is monotonic: adding or worsening a finding never raises the score", () => {
    // Deterministic pseudo-random walk over many finding sets.
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const statuses = ["present", "missing", "invalid", "temperror", "not_applicable"] as const;
    for (let trial = 0; trial < 300; trial++) {
      const st = Object.fromEntries(CATEGORIES.map((c) => [c, statuses[rnd(5)]])) as ScoreInput["statuses"];
      const fs = Array.from({ length: rnd(6) }, () => finding(CATEGORIES[rnd(8)] ?? "spf", SEVERITIES[rnd(5)] ?? "Info"));
      const base = scorePosture({ statuses: st, findings: fs }).score ?? 100;
      const added = scorePosture({ statuses: st, findings: [...fs, finding(CATEGORIES[rnd(8)] ?? "spf", SEVERITIES[rnd(5)] ?? "Info")] }).score ?? 100;
      expect(added).toBeLessThanOrEqual(base);
      if (fs.length > 0) {
        const i = rnd(fs.length);
        const worse = fs.map((f, j) => (j === i ? { ...f, severity: SEVERITIES[Math.max(0, SEVERITIES.indexOf(f.severity) - 1)] ?? "Critical" } : f));
        expect(scorePosture({ statuses: st, findings: worse }).score ?? 100).toBeLessThanOrEqual(base);
      }
    }
  });
  it("grade thresholds", () => {
    expect([100, 97, 96, 90, 89, 80, 70, 60, 59, 0].map(gradeFor)).toEqual(["A+", "A+", "A", "A", "B", "B", "C", "D", "F", "F"]);
  });
});

interface FixFacts {
  domain: string;
  nullMx: boolean;
  mxHosts: string[];
  spf: SpfFixFacts;
  dmarc: DmarcFixFacts;
  mtaSts: { status: PartStatus; uncovered: string[] };
  tlsRpt: { status: PartStatus };
}
/** The fixes of the parts that have some, in registry order, from each part's facts. */
function buildFixes(f: FixFacts, opts: { now: Date; dmarcRua?: string; tlsRptRua?: string }): DnsFix[] {
  const ctx = { domain: f.domain, nullMx: f.nullMx, mxHosts: f.mxHosts, now: opts.now };
  return [
    ...spfFixes(f.spf, ctx),
    ...dmarcFixes(f.dmarc, ctx, opts.dmarcRua ?? null),
    ...nullMxFix(f.spf.record, ctx),
    ...mtaStsFixes(f.mtaSts, ctx),
    ...tlsRptFixes(f.tlsRpt.status, ctx, opts.tlsRptRua ?? null),
  ];
}
const facts = (over: Partial<FixFacts> = {}): FixFacts => ({
  domain: "example.com",
  nullMx: false,
  mxHosts: ["mx1.example.com"],
  spf: { status: "present", record: "v=spf1 mx -all" },
  dmarc: { status: "present", record: "v=DMARC1; p=reject; rua=mailto:d@example.com", p: "reject", sp: null, pct: null, rua: ["mailto:d@example.com"] },
  mtaSts: { status: "present", uncovered: [] },
  tlsRpt: { status: "present" },
  ...over,
});
const now = new Date("2026-11-21T10:20:30Z");

describe("buildFixes", () => {
  it("a complete posture needs no fixes", () => expect(buildFixes(facts(), { now })).toEqual([]));
  it("missing parts get exact records", () => {
    const f = buildFixes(
      facts({
        spf: { status: "missing", record: null },
        dmarc: { status: "missing", record: null, p: null, sp: null, pct: null, rua: [] },
        mtaSts: { status: "missing", uncovered: [] },
        tlsRpt: { status: "missing" },
      }),
      { now, dmarcRua: "mailto:rua@reports.example" },
    );
    expect(f.map(({ host, type, value }) => ({ host, type, value }))).toEqual([
      { host: "example.com", type: "TXT", value: "v=spf1 mx ~all" },
      { host: "_dmarc.example.com", type: "TXT", value: "v=DMARC1; p=none; rua=mailto:rua@reports.example" },
      { host: "_mta-sts.example.com", type: "TXT", value: "v=STSv1; id=20261121102030" },
      { host: "_smtp._tls.example.com", type: "TXT", value: "v=TLSRPTv1; rua=mailto:tls-reports@example.com" },
    ]);
    expect(f[2]?.reason).toContain("mx: mx1.example.com\r\nmax_age: 604800");
  });
  it("p=none, sp=none and pct are fixed in place, keeping other tags", () => {
    const f = buildFixes(
      facts({
        dmarc: {
          status: "present",
          record: "v=DMARC1; p=none; sp=none; pct=50; rua=mailto:d@example.com",
          p: "none",
          sp: "none",
          pct: 50,
          rua: ["mailto:d@example.com"],
        },
      }),
      { now },
    );
    expect(f).toMatchObject([{ host: "_dmarc.example.com", value: "v=DMARC1; p=quarantine; rua=mailto:d@example.com" }]);
  });
  it("null MX domains are parked: SPF -all and DMARC reject, no MTA-STS/TLS-RPT", () => {
    const f = buildFixes(
      facts({
        nullMx: true,
        mxHosts: [],
        spf: { status: "present", record: "v=spf1 mx ~all" },
        dmarc: { status: "missing", record: null, p: null, sp: null, pct: null, rua: [] },
        mtaSts: { status: "missing", uncovered: [] },
        tlsRpt: { status: "missing" },
      }),
      { now },
    );
    expect(f.map((x) => x.value)).toEqual(["v=spf1 -all", "v=DMARC1; p=reject; sp=reject"]);
  });
  it("temperror parts get no fix", () => {
    expect(
      buildFixes(facts({ dmarc: { status: "temperror", record: null, p: null, sp: null, pct: null, rua: [] }, tlsRpt: { status: "temperror" } }), { now }),
    ).toEqual([]);
  });
  it("setTag replaces, appends and removes", () => {
    expect(setTag("v=DMARC1; p=none", "p", "reject")).toBe("v=DMARC1; p=reject");
    expect(setTag("v=DMARC1; p=none;", "rua", "mailto:a@b.example")).toBe("v=DMARC1; p=none; rua=mailto:a@b.example");
    expect(setTag("v=DMARC1; pct=10; p=none", "pct", null)).toBe("v=DMARC1; p=none");
  });
});

describe("buildRecommendations", () => {
  it("orders by severity then category weight and drops pure Info", () => {
    const r = buildRecommendations([finding("bimi", "High", "b"), finding("spf", "Info", "i"), finding("dmarc", "High", "d"), finding("mx", "Critical", "m")]);
    expect(r.map((x) => x.rule)).toEqual(["m", "d", "b"]);
  });
});

describe("diffPostures", () => {
  const prev: PostureSnapshot = {
    spf: { status: "present", record: "v=spf1 -all", fields: { all: "-all" } },
    dmarc: { status: "present", record: "v=DMARC1; p=reject", fields: { p: "reject", sp: null, pct: null, rua: [] } },
    mta_sts: { status: "present", record: "v=STSv1; id=1", fields: { id: "1", mode: "enforce", mx: ["mx.example.com"], policy: "a" } },
    blacklist: { status: "present", record: null, fields: { listed: ["Spamhaus ZEN:192.0.2.1", "SpamCop:192.0.2.1"], unknown: [] } },
  };
  it("no change, no diff", () => expect(diffPostures(prev, prev)).toEqual([]));
  it("DMARC policy weakened is High; SPF record change Medium", () => {
    const cur: PostureSnapshot = {
      ...prev,
      dmarc: { status: "present", record: "v=DMARC1; p=none", fields: { p: "none", sp: null, pct: null, rua: [] } },
      spf: { status: "present", record: "v=spf1 ~all", fields: { all: "~all" } },
    };
    expect(diffPostures(prev, cur)).toEqual(
      expect.arrayContaining([
        { category: "dmarc", field: "p", before: "reject", after: "none", severity: "High" },
        { category: "spf", field: "record", before: "v=spf1 -all", after: "v=spf1 ~all", severity: "Medium" },
        { category: "spf", field: "all", before: "-all", after: "~all", severity: "High" },
      ]),
    );
  });
  it("temperror or stale parts yield no diff", () => {
    const cur: PostureSnapshot = { ...prev, dmarc: { status: "temperror", record: null }, spf: { status: "stale", record: "v=spf1 +all" } };
    expect(diffPostures(prev, cur)).toEqual([]);
    expect(diffPostures(cur, prev)).toEqual([]);
  });
  it("removal is graded per category", () => {
    expect(diffPostures(prev, { ...prev, dmarc: { status: "missing", record: null } })).toContainEqual({
      category: "dmarc",
      field: "status",
      before: "present",
      after: "missing",
      severity: "High",
    });
  });
  it("MTA-STS policy changed under the same id is drift", () => {
    const cur: PostureSnapshot = {
      ...prev,
      mta_sts: { status: "present", record: "v=STSv1; id=1", fields: { id: "1", mode: "testing", mx: ["mx.example.com"], policy: "b" } },
    };
    expect(diffPostures(prev, cur).map((c) => [c.field, c.severity])).toEqual([
      ["mode", "High"],
      ["policy", "Low"],
      ["id_unchanged", "High"],
    ]);
  });
  it("blacklist: new listing High, delisting Info, unknown is not a delisting", () => {
    const cur: PostureSnapshot = {
      ...prev,
      blacklist: {
        status: "present",
        record: null,
        fields: { listed: ["PSBL:192.0.2.1"], unknown: ["Spamhaus ZEN:192.0.2.1"], cleared: ["SpamCop:192.0.2.1"] },
      },
    };
    expect(diffPostures(prev, cur)).toEqual([
      { category: "blacklist", field: "PSBL:192.0.2.1", before: "not_listed", after: "listed", severity: "High" },
      { category: "blacklist", field: "SpamCop:192.0.2.1", before: "listed", after: "not_listed", severity: "Info" },
    ]);
  });

  it("blacklist: a listing whose target was not asked this time (its MX address did not resolve) is no delisting", () => {
    const cur: PostureSnapshot = {
      ...prev,
      blacklist: { status: "present", record: null, fields: { listed: [], unknown: [], cleared: ["SpamCop:198.51.100.9"] } },
    };
    expect(diffPostures(prev, cur)).toEqual([]);
  });
});
