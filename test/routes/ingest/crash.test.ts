// A crash between the two writes of an ingestion (docs/decisions.md D122): the report and its rows are one
// transaction in the domain's report object; the daily summary, the event and alerts are one D1 batch
// after it. A crash (or a stall) between the two heals on the re-send without counting anything twice,
// and copies arriving at once from two Workers count once.
import { env } from "cloudflare:workers";
import { gzipSync } from "fflate";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SUMMARY_LEASE_MS } from "../../../src/durable-objects/domain-store/object";
import { createServices } from "../../../src/services";
import { ingestReport } from "../../../src/services/dmarc/ingest";
import { json, makeTeam } from "../../support/api";
import { day0, enc, makeDomain, post, reportXml, stored } from "../../support/reports";
import { outboxAndLogEvents } from "../../support/webhooks";

afterEach(() => vi.restoreAllMocks());

/** Enough records that the object's write spans many row chunks. */
const RECORDS = 30_000;
const big = (domain: string, reportId: string) =>
  reportXml({
    domain,
    reportId,
    begin: day0(1),
    end: day0(0) - 1,
    records: Array.from({ length: RECORDS }, (_, i) => ({ ip: `198.${(i >> 8) & 255}.${i & 255}.1`, count: 1 })),
  });
const day = new Date(day0(1) * 1000).toISOString().slice(0, 10);

const summary = async (domainId: number) =>
  env.DB.prepare("SELECT day, reports, messages, pass, fail FROM dmarc_daily WHERE domain_id = ? ORDER BY day").bind(domainId).all();
const eventCount = async (domainId: number) => (await outboxAndLogEvents({ domainId })).filter((e) => e.type === "dmarc.report.received").length;

describe("a crash between the object write and the D1 summary", () => {
  it("heals on the re-send: the rows count once, the summary is exact, one event", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const xml = big(d.name, "crash-between");
    const svc = createServices(env);
    // The process "dies" at its D1 batch: the object already holds the report.
    vi.spyOn(svc.db, "batch").mockRejectedValueOnce(new Error("isolate killed"));
    await expect(ingestReport(svc, { body: enc(xml), recipient: d.address })).rejects.toThrow("isolate killed");
    const crashed = await stored(d.id);
    expect(crashed.reports.map((r) => r.status)).toEqual(["processing"]);
    expect(crashed.messages).toBe(RECORDS);
    expect((await summary(d.id)).results).toEqual([]);
    expect(await eventCount(d.id)).toBe(0);

    const resend = await post(gzipSync(enc(xml)), { contentType: "application/gzip" });
    expect(resend.status, "the re-send completes the report").toBe(202);
    const after = await stored(d.id);
    expect(after.reports.map((r) => r.status)).toEqual(["complete"]);
    expect(after.messages, "counted once").toBe(RECORDS);
    expect((await summary(d.id)).results).toEqual([{ day, reports: 1, messages: RECORDS, pass: RECORDS, fail: 0 }]);
    expect(await eventCount(d.id)).toBe(1);

    const again = await post(gzipSync(enc(xml)), { contentType: "application/gzip" });
    expect(again.status, "a later copy is a plain duplicate").toBe(200);
    expect((await summary(d.id)).results).toEqual([{ day, reports: 1, messages: RECORDS, pass: RECORDS, fail: 0 }]);
  });

  it("a copy stalled before its D1 batch that wakes after a later report adds nothing and rolls nothing back", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const first = reportXml({ domain: d.name, reportId: "slow", begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 5 }] });
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const svc = createServices(env);
    let wake: () => void = () => undefined;
    const realBatch = svc.db.batch.bind(svc.db);
    vi.spyOn(svc.db, "batch").mockImplementationOnce(
      ((items: Parameters<typeof realBatch>[0]) => new Promise((resolve) => (wake = () => resolve(realBatch(items))))) as unknown as typeof svc.db.batch,
    );
    const stalled = ingestReport(svc, { body: enc(first), recipient: d.address });
    for (let i = 0; i < 300 && (await stored(d.id)).reports.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    // While the stalled copy holds the report's summarising lease (D159), a re-send is a duplicate ...
    const meanwhile = await post(enc(first));
    expect(meanwhile.status, "a copy arriving during the D1 step").toBe(200);
    expect((await json<{ data: { duplicate: boolean } }>(meanwhile)).data.duplicate).toBe(true);
    // ... and once the lease is older than SUMMARY_LEASE_MS a re-send takes it over and completes the
    // report; then another reporter's report for the same day lands.
    vi.setSystemTime(Date.now() + SUMMARY_LEASE_MS + 1000);
    expect((await post(enc(first))).status).toBe(202);
    const second = reportXml({ domain: d.name, org: "Yahoo", reportId: "y", begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.2", count: 3 }] });
    expect((await post(enc(second))).status).toBe(202);
    wake();
    await stalled;
    // The stalled copy's older absolute totals (5 messages) lose to the newer ones (8) by seq.
    expect((await summary(d.id)).results).toEqual([{ day, reports: 2, messages: 8, pass: 8, fail: 0 }]);
    expect(await eventCount(d.id)).toBe(2);
    expect((await stored(d.id)).messages).toBe(8);
  });

  it("copies arriving at once from two Workers count once, with one event", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const xml = reportXml({ domain: d.name, reportId: "twice", begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 7 }] });
    const [a, b] = await Promise.all([
      ingestReport(createServices(env), { body: enc(xml), recipient: d.address }),
      ingestReport(createServices(env), { body: enc(xml), recipient: d.address }),
    ]);
    expect([a.duplicate, b.duplicate]).toContain(false);
    expect((await stored(d.id)).messages).toBe(7);
    expect((await summary(d.id)).results).toEqual([{ day, reports: 1, messages: 7, pass: 7, fail: 0 }]);
    expect(await eventCount(d.id)).toBe(1);
  });
});
