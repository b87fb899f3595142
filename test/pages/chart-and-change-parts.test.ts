// The pure pieces of the domain page: the chart's time labels and trimmed day axis, and the grouping
// of a check's diff rows into one change each (docs/decisions.md D168).
import { describe, expect, it } from "vitest";
import { timeLabels, trimLeadingEmpty } from "../../src/pages/charts";
import { type DiffRow, groupChanges } from "../../src/pages/domain-changes";

describe("chart axes", () => {
  it("labels points within two days with day and time, longer spans with dates, and one point once", () => {
    expect(timeLabels(["2026-11-28T09:15:00.000Z", "2026-11-28T14:40:00.000Z"])).toEqual({ first: "Nov 28, 09:15", last: "Nov 28, 14:40 UTC" });
    expect(timeLabels(["2026-11-27T23:00:00.000Z", "2026-11-29T22:59:00.000Z"])).toEqual({ first: "Nov 27, 23:00", last: "Nov 29, 22:59 UTC" });
    expect(timeLabels(["2026-11-20T09:15:00.000Z", "2026-11-28T14:40:00.000Z"])).toEqual({ first: "2026-11-20", last: "2026-11-28" });
    expect(timeLabels(["2026-11-01", "2026-11-30"])).toEqual({ first: "2026-11-01", last: "2026-11-30" });
    expect(timeLabels([])).toBeNull();
  });

  it("drops the empty days before the first one with data, keeping at least a week", () => {
    const days = (lead: number, data: number) => [...Array(lead).fill(0), ...Array(data).fill(5)];
    expect(trimLeadingEmpty(days(27, 3))).toBe(23);
    expect(trimLeadingEmpty(days(20, 10))).toBe(20);
    expect(trimLeadingEmpty(days(0, 30))).toBe(0);
    expect(trimLeadingEmpty(Array(30).fill(0))).toBe(0);
    expect(trimLeadingEmpty(days(3, 2))).toBe(0);
  });
});

describe("groupChanges", () => {
  const row = (o: Partial<DiffRow>): DiffRow => ({
    check_id: "chk_1",
    category: "dmarc",
    field: "record",
    before: null,
    after: null,
    severity: "Low",
    created_at: "2026-11-28T10:00:00.000Z",
    ...o,
  });

  it("merges a record change with its tag changes into one entry titled by the tags, with the record shown", () => {
    const entries = groupChanges([
      row({ field: "record", before: "v=DMARC1; p=none", after: "v=DMARC1; p=quarantine; pct=50" }),
      row({ field: "p", before: "none", after: "quarantine", severity: "Info" }),
      row({ field: "pct", before: null, after: "50", severity: "Medium" }),
      row({ check_id: "chk_0", category: "spf", field: "all", before: "~all", after: "-all", created_at: "2026-11-27T10:00:00.000Z" }),
    ]);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      title: "DMARC policy changed from none to quarantine; DMARC percentage of mail the policy applies to set to 50",
      severity: "Medium",
      before: "v=DMARC1; p=none",
      after: "v=DMARC1; p=quarantine; pct=50",
      shown: true,
    });
    expect(entries[1]).toMatchObject({ title: "SPF catch-all rule changed from ~all to -all", shown: false });
  });

  it("keeps a record-only change, and each DKIM selector and listing, as entries of their own", () => {
    const entries = groupChanges([
      row({ category: "tls_rpt", field: "record", before: "a", after: "b" }),
      row({ category: "dkim", field: "selector:s1", before: null, after: "fp1", severity: "Info" }),
      row({ category: "dkim", field: "selector:s2", before: "fp2", after: null, severity: "Medium" }),
      row({ category: "blacklist", field: "spamcop:192.0.2.1", before: "not_listed", after: "listed", severity: "High" }),
    ]);
    expect(entries.map((e) => e.title)).toEqual([
      "TLS-RPT record changed",
      "DKIM selector s1 added",
      "DKIM selector s2 removed",
      "192.0.2.1 listed on spamcop",
    ]);
    expect(entries[0]?.shown).toBe(true);
  });

  it("does not merge the same part's changes found by different checks", () => {
    const entries = groupChanges([
      row({ field: "p", before: "none", after: "reject" }),
      row({ check_id: "chk_0", field: "p", before: "reject", after: "none" }),
    ]);
    expect(entries).toHaveLength(2);
  });
});
