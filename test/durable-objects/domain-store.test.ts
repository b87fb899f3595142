// The per-domain report object on its own (docs/decisions.md D120-D124): migrations from empty, one
// report per transaction with absolute day totals, duplicates and replays, retention and rollup by
// alarm with a given clock, and destroy.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { DmarcIngestInput, DmarcRowTuple } from "../../src/durable-objects/domain-store/types";

const DAY = 86_400_000;
const NOW = Date.parse("2026-06-15T12:00:00Z");
let n = 0;
const fresh = () => env.DOMAIN_STORE.getByName(`test:${++n}:${Math.random()}`);

const row = (day: string, ip: string, messages: number, aligned: 0 | 1, selector = "s1"): DmarcRowTuple => [
  day,
  ip,
  "example.com",
  "none",
  aligned,
  aligned,
  "example.com",
  selector,
  aligned ? "pass" : "fail",
  "example.com",
  aligned ? "pass" : "fail",
  messages,
];

function report(o: Partial<DmarcIngestInput> & { reportId: string; rows: DmarcRowTuple[] }): DmarcIngestInput {
  const begin = Date.parse(`${o.rows[0]?.[0] ?? "2026-06-14"}T00:00:00Z`);
  return {
    orgName: "google.com",
    email: "noreply@google.com",
    version: "1.0",
    dateBegin: begin,
    dateEnd: begin + DAY,
    records: o.rows.length,
    policy: { domain: "example.com", p: "none" },
    receivedAt: NOW,
    retentionDays: 365,
    ...o,
  };
}

describe("DomainStore object", () => {
  it("starts empty with its schema migrated on first use", async () => {
    const stub = fresh();
    expect(await stub.stats()).toEqual({ reports: 0, rows: 0, messages: 0, tlsReports: 0, failures: 0, checks: 0 });
    await runInDurableObject(stub, (_i, state) => {
      const tables = state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name")
        .toArray()
        .map((t) => t.name);
      expect(tables).toEqual(["checks", "diffs", "failures", "reports", "rows", "tls_failures", "tls_policies", "tls_reports"]);
    });
  });

  it("stores a report once and answers absolute day totals; a copy is a replay until summarised, then a duplicate", async () => {
    const stub = fresh();
    const a = await stub.ingestDmarc(
      report({ reportId: "a", rows: [row("2026-06-14", "192.0.2.1", 10, 1), row("2026-06-14", "192.0.2.9", 4, 0)], probeIps: ["192.0.2.9"] }),
    );
    expect(a.status).toBe("stored");
    expect(a.days).toEqual([{ day: "2026-06-14", reports: 1, messages: 14, pass: 10, fail: 4, top: [{ ip: "192.0.2.9", fail: 4 }] }]);
    expect(a.seenIps).toEqual([]);
    const b = await stub.ingestDmarc(report({ orgName: "yahoo.com", reportId: "b", rows: [row("2026-06-14", "192.0.2.9", 6, 0)], probeIps: ["192.0.2.9"] }));
    expect(b.status).toBe("stored");
    expect(b.seq).toBeGreaterThan(a.seq);
    expect(b.days[0]).toMatchObject({ reports: 2, messages: 20, pass: 10, fail: 10, top: [{ ip: "192.0.2.9", fail: 10 }] });
    expect(b.seenIps).toEqual(["192.0.2.9"]);

    // Same identity while the first copy still runs its D1 step (it holds the summarising lease, D159): told so.
    expect((await stub.ingestDmarc(report({ reportId: "a", rows: [row("2026-06-14", "192.0.2.1", 10, 1)] }))).status).toBe("summarising");
    // The first copy's D1 step failed and freed its lease. Same identity again before the worker confirmed
    // its D1 step: the same absolute totals, nothing added.
    await stub.releaseSummary("dmarc", a.ref);
    const again = await stub.ingestDmarc(report({ reportId: "a", rows: [row("2026-06-14", "192.0.2.1", 10, 1)], probeIps: ["192.0.2.9"] }));
    expect(again).toMatchObject({ status: "replay", ref: a.ref, days: b.days });
    // seenIps of a replay leaves the report's own rows out, so the new-sender rule answers as the first time.
    expect(again.seenIps).toEqual(["192.0.2.9"]);
    await stub.markSummarised(a.ref, NOW);
    expect((await stub.ingestDmarc(report({ reportId: "a", rows: [] }))).status).toBe("duplicate");
    expect(await stub.stats()).toMatchObject({ reports: 2, rows: 3, messages: 20 });
  });

  it("reads the views: analytics, sources, reports with their records, intake, evidence", async () => {
    const stub = fresh();
    await stub.ingestDmarc(
      report({
        reportId: "r1",
        rows: [row("2026-06-13", "192.0.2.1", 5, 1), row("2026-06-14", "192.0.2.1", 7, 1), row("2026-06-14", "198.51.100.2", 3, 0, "old")],
      }),
    );
    const a = await stub.dmarcAnalytics({
      from: "2026-06-01",
      to: "2026-06-15",
      startMs: Date.parse("2026-06-01"),
      endMs: Date.parse("2026-06-16"),
      domainName: "example.com",
      maxSources: 100,
    });
    expect(a.reports).toMatchObject({ reports: 1, reporters: 1 });
    expect(a.daily.map((d) => [d.day, d.messages, d.pass])).toEqual([
      ["2026-06-13", 5, 5],
      ["2026-06-14", 10, 7],
    ]);
    expect(a.sources.map((s) => [s.ip, s.messages])).toEqual([
      ["192.0.2.1", 12],
      ["198.51.100.2", 3],
    ]);
    expect(await stub.dmarcSourceCount("2026-06-01", "2026-06-15", "fail")).toBe(1);
    const list = await stub.dmarcReports(10, 0);
    expect(list.total).toBe(1);
    expect(list.rows[0]).toMatchObject({ report_id: "r1", messages: 15, pass: 12 });
    const one = await stub.dmarcReport(list.rows[0]?.id ?? 0, 10, 0);
    expect(one?.records.map((r) => [r.source_ip, r.count])).toEqual([
      ["192.0.2.1", 12],
      ["198.51.100.2", 3],
    ]);
    expect(await stub.dmarcReport(999, 10, 0)).toBeNull();
    expect(await stub.intake(NOW - DAY, { orgName: "google.com", email: "noreply@google.com" })).toEqual({ reports: 1, records: 3, reporterReports: 1 });
    expect(await stub.sendingIps("2026-06-01", 10)).toEqual(["192.0.2.1"]);
    expect((await stub.selectorEvidence("example.com", "2026-06-01", 200)).map((e) => [e.key, e.messages])).toEqual([
      ["old", 3],
      ["s1", 12],
    ]);
  });

  it("the alarm purges past the plan's retention and rolls rows older than 30 days into one per day, source and outcome", async () => {
    const stub = fresh();
    const old = "2026-04-01"; // 75 days before NOW: rolled up
    const gone = "2025-06-01"; // past 365 days: purged
    await stub.ingestDmarc(report({ reportId: "g1", rows: [row(gone, "192.0.2.1", 2, 1)] }));
    await stub.ingestDmarc(report({ reportId: "o1", rows: [row(old, "192.0.2.1", 3, 1), row(old, "192.0.2.2", 1, 0)] }));
    await stub.ingestDmarc(report({ orgName: "yahoo.com", reportId: "o2", rows: [row(old, "192.0.2.1", 4, 1)] }));
    await stub.ingestDmarc(report({ reportId: "n1", rows: [row("2026-06-14", "192.0.2.1", 9, 1)] }));
    expect(await stub.stats()).toMatchObject({ reports: 4, rows: 5, messages: 19 });

    const out = await stub.maintain(NOW);
    expect(out).toMatchObject({ purged: { rows: 1, reports: 1 }, rolledUpDays: 1, more: false });
    // Two reporters' rows of the same outcome are one row now; the totals stay exact.
    expect(await stub.stats()).toMatchObject({ reports: 3, rows: 3, messages: 17 });
    const list = await stub.dmarcReports(10, 0);
    expect(list.rows.map((r) => [r.report_id, r.messages])).toEqual([
      ["n1", 9],
      ["o2", 4],
      ["o1", 4],
    ]);
    // A second run changes nothing.
    expect(await stub.maintain(NOW)).toMatchObject({ purged: { rows: 0, reports: 0 }, rolledUpDays: 0 });

    // The alarm is set by the first write and runs the same maintenance.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await runInDurableObject(stub, async (_i, state) => {
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
  });

  it("keeps failure samples newest first, counts them by received range, and purges them after 30 days", async () => {
    const stub = fresh();
    const sample = (receivedAt: number, sourceIp: string) => ({
      reportingOrg: "receiver.example",
      arrivalDate: receivedAt - 60_000,
      sourceIp,
      authFailure: "dmarc",
      authResults: null,
      identityAlignment: "none",
      dkimDomain: null,
      dkimSelector: null,
      deliveryResult: "reject",
      receivedAt,
    });
    await stub.insertFailure(sample(NOW - 31 * DAY, "192.0.2.1"));
    await stub.insertFailure(sample(NOW - DAY, "192.0.2.2"));
    await stub.insertFailure(sample(NOW, "192.0.2.3"));
    expect((await stub.listFailures({}, 10, 0)).map((f) => f.sourceIp)).toEqual(["192.0.2.3", "192.0.2.2", "192.0.2.1"]);
    expect(await stub.countFailures({ fromMs: NOW - 2 * DAY, toMs: NOW })).toBe(1);
    expect((await stub.maintain(NOW)).failuresPurged).toBe(1);
    expect(await stub.countFailures({})).toBe(2);
  });

  it("keeps checks and diffs once by id, pages them newest first, and the alarm applies the check history's retention", async () => {
    const stub = fresh();
    const check = (id: string, ageDays: number, posture: string | null = "{}") => ({
      id,
      status: "completed",
      trigger: "scheduled",
      score: 90,
      grade: "A",
      dmarcPolicy: "reject",
      posture,
      staleParts: ["dane"],
      queries: 40,
      durationMs: 120,
      error: null,
      createdAt: NOW - ageDays * DAY,
    });
    const diff = (id: number, checkId: string, ageDays: number) => ({
      id,
      checkId,
      category: "spf",
      field: "record",
      before: "a",
      after: "b",
      severity: "Medium",
      createdAt: NOW - ageDays * DAY,
    });
    const checks = [check("chk_401", 401), check("chk_40", 40), check("chk_35", 35), check("chk_1", 1, null)];
    expect(await stub.storeChecks(checks, [diff(7, "chk_401", 401), diff(9, "chk_40", 40)])).toBe(4);
    // The same copy again (a crash before D1 let go of it) adds nothing.
    expect(await stub.storeChecks(checks, [diff(7, "chk_401", 401), diff(9, "chk_40", 40)])).toBe(0);
    expect(await stub.heldChecks(["chk_40", "chk_other"])).toEqual(["chk_40"]);
    const page = await stub.checkPage(2, 0);
    expect(page.total).toBe(4);
    expect(page.rows.map((c) => c.id)).toEqual(["chk_1", "chk_35"]);
    expect(page.rows[0]).toMatchObject({ staleParts: ["dane"], queries: 40, createdAt: NOW - DAY });
    expect((await stub.diffPage(10, 0)).rows.map((d) => d.id)).toEqual([9, 7]);

    // 400 days of checks and diffs; posture JSON 30 days, except the newest posture (chk_35: chk_1 has none).
    const out = await stub.maintain(NOW);
    expect(out).toMatchObject({ checksPurged: 1, posturesDropped: 1 });
    expect((await stub.checkPage(10, 0)).rows.map((c) => c.id)).toEqual(["chk_1", "chk_35", "chk_40"]);
    expect((await stub.getCheck("chk_40"))?.posture).toBeNull();
    expect((await stub.getCheck("chk_35"))?.posture).toBe("{}");
    expect((await stub.diffPage(10, 0)).rows.map((d) => d.id)).toEqual([9]);
    // The first copy set the daily alarm; with only history left it keeps coming back.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await runInDurableObject(stub, async (_i, state) => {
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
  });

  it("destroy deletes every table, row and the alarm", async () => {
    const stub = fresh();
    await stub.ingestDmarc(report({ reportId: "x", rows: [row("2026-06-14", "192.0.2.1", 1, 1)] }));
    await stub.storeChecks(
      [
        {
          id: "chk_x",
          status: "failed",
          trigger: "manual",
          score: null,
          grade: null,
          dmarcPolicy: null,
          posture: null,
          staleParts: null,
          queries: 3,
          durationMs: 9,
          error: "x",
          createdAt: NOW,
        },
      ],
      [],
    );
    await stub.destroy();
    await runInDurableObject(stub, async (_i, state) => {
      expect(await state.storage.getAlarm()).toBeNull();
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN ('rows', 'checks')").one().n).toBe(0);
    });
  });
});
