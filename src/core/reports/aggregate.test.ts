// Aggregation: keys, multi-day spreading with exact totals, caps and selector evidence. Pure, no I/O.
import { describe, expect, it } from "vitest";
import { Aggregator } from "./aggregate";
import { parseReport } from "./index";
import { apportion, daysCovered } from "./spread";
import { BEGIN, enc, report } from "./test-fixtures";
import type { ReportRecord } from "./types";

const rec = (ip: string, count: number, selector = "s1"): ReportRecord => ({
  sourceIp: ip,
  count,
  disposition: "none",
  dkim: "pass",
  spf: "pass",
  reasons: [],
  headerFrom: "example.com",
  envelopeFrom: null,
  envelopeTo: null,
  dkimResults: [{ domain: "example.com", selector, result: "pass", humanResult: null }],
  spfResults: [{ domain: "example.com", scope: "mfrom", result: "pass" }],
});

describe("largest-remainder apportionment", () => {
  it("keeps totals exact and gives leftovers to the largest remainders (ties: earlier day)", () => {
    expect(apportion(7, [24, 24, 12])).toEqual([3, 3, 1]); // quotas 2.8, 2.8, 1.4
    expect(apportion(2, [1, 1, 1])).toEqual([1, 1, 0]);
    expect(apportion(0, [5, 5])).toEqual([0, 0]);
    expect(apportion(5, [86_400])).toEqual([5]);
    const big = 3e15; // count × weight beyond 2^53 takes the BigInt path
    expect(apportion(big, [86_400, 86_400, 3_600]).reduce((a, b) => a + b, 0)).toBe(big);
  });

  it("a property check: random counts and weights always sum back", () => {
    let seed = 42;
    const rnd = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let k = 0; k < 500; k++) {
      const w = Array.from({ length: 1 + rnd(8) }, () => 1 + rnd(86_400));
      const c = rnd(1_000_000);
      const parts = apportion(c, w);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(c);
      const total = w.reduce((a, b) => a + b, 0);
      for (const [i, p] of parts.entries()) expect(Math.abs(p - (c * (w[i] ?? 0)) / total)).toBeLessThan(1);
    }
  });
});

describe("day coverage", () => {
  it("≤ 24 h stays on one day (its midpoint); longer ranges overlap by seconds", () => {
    expect(daysCovered(BEGIN, BEGIN + 86_400).days).toEqual([{ day: "2023-11-15", seconds: 1 }]);
    expect(daysCovered(BEGIN + 43_200, BEGIN + 43_200 + 86_400).days.map((d) => d.day)).toEqual(["2023-11-16"]);
    expect(daysCovered(BEGIN, BEGIN + 60 * 3600).days).toEqual([
      { day: "2023-11-15", seconds: 86_400 },
      { day: "2023-11-16", seconds: 86_400 },
      { day: "2023-11-17", seconds: 43_200 },
    ]);
    expect(daysCovered(0, 400 * 86_400).spread).toBe(false); // absurd ranges are not spread
  });
});

describe("multi-day reports through parseReport", () => {
  it("a 60-hour report is spread over three UTC days and totals are preserved exactly", async () => {
    const records = [
      { ip: "192.0.2.1", count: 7 },
      { ip: "192.0.2.2", count: 1 },
      { ip: "192.0.2.3", count: 100 },
      { ip: "192.0.2.1", count: 3 }, // same key as the first: summed before spreading (10 → 4, 4, 2)
    ];
    const r = await parseReport(enc(report({ begin: BEGIN, end: BEGIN + 60 * 3600, records })));
    if (!r.ok) throw new Error(r.error.message);
    const sum = (ip?: string): number => r.value.rows.filter((x) => !ip || x.sourceIp === ip).reduce((a, x) => a + x.messages, 0);
    expect(sum()).toBe(111);
    expect(r.value.totals.messages).toBe(111);
    expect(r.value.rows.filter((x) => x.sourceIp === "192.0.2.1").map((x) => [x.day, x.messages])).toEqual([
      ["2023-11-15", 4],
      ["2023-11-16", 4],
      ["2023-11-17", 2],
    ]);
    expect(sum("192.0.2.2")).toBe(1);
    expect(r.value.rows.filter((x) => x.sourceIp === "192.0.2.2")).toHaveLength(1); // no zero rows
    expect(sum("192.0.2.3")).toBe(100);
  });
});

describe("Aggregator caps", () => {
  it("distinct keys are capped with an overflow counter; totals still count everything", () => {
    const a = new Aggregator({ maxKeys: 3 });
    for (let i = 0; i < 10; i++) a.add(rec(`192.0.2.${i}`, 2));
    a.add(rec("192.0.2.1", 5)); // an existing key still sums
    const out = a.finish(BEGIN, BEGIN + 86_399);
    expect(out.rows).toHaveLength(3);
    expect(out.totals).toEqual({ records: 11, messages: 25, overflowRecords: 7, overflowMessages: 14 });
    expect(out.rows.reduce((s, r) => s + r.messages, 0) + out.totals.overflowMessages).toBe(25);
    expect(out.warnings[0]).toMatch(/7 records/);
  });

  it("selector evidence caps source IPs and selectors", () => {
    const a = new Aggregator({ maxIpsPerSelector: 2, maxSelectors: 1 });
    for (let i = 0; i < 4; i++) a.add(rec(`192.0.2.${i}`, 1));
    a.add(rec("192.0.2.9", 1, "other"));
    const out = a.finish(BEGIN, BEGIN + 86_399);
    expect(out.selectors).toEqual([
      { domain: "example.com", selector: "s1", messages: 4, pass: 4, fail: 0, sourceIps: ["192.0.2.0", "192.0.2.1"], sourceIpsTruncated: true },
    ]);
    expect(out.warnings.join()).toMatch(/beyond 1 selectors/);
  });

  it("a multi-day report whose keys × days exceed the row cap is kept on one day", () => {
    const a = new Aggregator({ maxRows: 5 });
    for (let i = 0; i < 3; i++) a.add(rec(`192.0.2.${i}`, 3));
    const out = a.finish(BEGIN, BEGIN + 3 * 86_400);
    expect(out.rows).toHaveLength(3);
    expect(out.rows.reduce((s, r) => s + r.messages, 0)).toBe(9);
  });
});
