// A crash in the middle of an ingestion never leaves a half-written report that counts, blocks a
// re-send, or stays forever (docs/ingestion.md). The crash is a D1 batch that fails after some row
// batches were written; the real kill of a running wrangler dev is in the smoke suite's notes.
import { env } from "cloudflare:workers";
import { gzipSync } from "fflate";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createServices } from "../../../src/services";
import { ingestReport } from "../../../src/services/dmarc/ingest";
import { sweepUnpublishedReports, UNPUBLISHED_GRACE_MS } from "../../../src/services/dmarc/sweep";
import { makeTeam } from "../../support/api";
import { day0, enc, makeDomain, post, reportXml } from "../../support/reports";

afterEach(() => vi.restoreAllMocks());

/** Enough records for several D1 batches of row chunks (10 chunks of about 192 KB per batch). */
const RECORDS = 30_000;
const big = (domain: string, reportId: string) =>
  reportXml({
    domain,
    reportId,
    begin: day0(1),
    end: day0(0) - 1,
    records: Array.from({ length: RECORDS }, (_, i) => ({ ip: `198.${(i >> 8) & 255}.${i & 255}.1`, count: 1 })),
  });
const state = async (domainId: number) => {
  const reports = await env.DB.prepare("SELECT status FROM dmarc_reports WHERE domain_id = ?").bind(domainId).all<{ status: string }>();
  const rows = await env.DB.prepare("SELECT COALESCE(SUM(messages), 0) AS n FROM dmarc_rows WHERE domain_id = ?").bind(domainId).first<{ n: number }>();
  return { statuses: reports.results.map((r) => r.status), messages: rows?.n ?? 0 };
};

describe("a crash in the middle of an ingestion", () => {
  it("leaves nothing counted, a re-send is accepted at once and counted once, and the stalled copy, if it wakes, adds nothing", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const xml = big(d.name, "crash-mid");
    // The process "dies" at its third batch (after the report row and one batch of row chunks): that
    // batch never returns and no cleanup runs, as after a kill.
    const svc = createServices(env);
    let batches = 0;
    let wake: () => void = () => undefined;
    const realBatch = svc.db.batch.bind(svc.db);
    const stallThird = (items: Parameters<typeof realBatch>[0]): ReturnType<typeof realBatch> => {
      batches++;
      // Stalls like a killed isolate; released at the end to play a copy that was only slow.
      if (batches !== 3) return realBatch(items);
      return new Promise((resolve) => {
        wake = () => resolve(realBatch(items));
      });
    };
    vi.spyOn(svc.db, "batch").mockImplementation(stallThird as unknown as typeof svc.db.batch);
    const stalled = ingestReport(svc, { body: enc(xml), recipient: d.address });
    for (let i = 0; i < 300 && batches < 3; i++) await new Promise((r) => setTimeout(r, 20));
    const crashed = await state(d.id);
    expect(crashed.statuses).toEqual(["processing"]);
    expect(crashed.messages, "some rows were written before the crash").toBeGreaterThan(0);

    const complete = await env.DB.prepare("SELECT COUNT(*) AS n FROM dmarc_reports WHERE domain_id = ? AND status = 'complete'")
      .bind(d.id)
      .first<{ n: number }>();
    expect(complete?.n, "the half-written report never counts").toBe(0);

    const resend = await post(gzipSync(enc(xml)), { contentType: "application/gzip" });
    expect(resend.status, "a re-send right after the crash is accepted").toBe(202);
    const after = await state(d.id);
    expect(after.statuses).toEqual(["complete"]);
    expect(after.messages, "counted once").toBe(RECORDS);

    wake();
    expect((await stalled).duplicate, "the stalled copy finds itself superseded").toBe(true);
    const final = await state(d.id);
    expect(final).toEqual({ statuses: ["complete"], messages: RECORDS });
    const events = await env.DB.prepare("SELECT COUNT(*) AS n FROM events WHERE domain_id = ? AND type = 'dmarc.report.received'")
      .bind(d.id)
      .first<{ n: number }>();
    expect(events?.n, "one event").toBe(1);
  });

  it("the sweep removes a report left unpublished past its grace, in batches, and nothing else", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    expect(
      (await post(enc(reportXml({ domain: d.name, reportId: "kept", begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 2 }] })))).status,
    ).toBe(202);
    const old = Date.now() - UNPUBLISHED_GRACE_MS - 1000;
    const left = await env.DB.prepare(
      "INSERT INTO dmarc_reports (domain_id, org_name, report_id, date_begin, date_end, records, messages, status, created_at) VALUES (?, 'x.example', 'left', 0, 0, 5, 5, 'processing', ?) RETURNING id",
    )
      .bind(d.id, old)
      .first<{ id: number }>();
    await env.DB.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
      INSERT INTO dmarc_rows (report_id, domain_id, day, source_ip, dkim_aligned, spf_aligned, messages) SELECT ?, ?, '2026-01-01', '192.0.2.9', 1, 1, 1 FROM n`)
      .bind(left?.id, d.id)
      .run();
    const young = await env.DB.prepare(
      "INSERT INTO dmarc_reports (domain_id, org_name, report_id, date_begin, date_end, records, messages, status, created_at) VALUES (?, 'y.example', 'young', 0, 0, 1, 1, 'processing', ?) RETURNING id",
    )
      .bind(d.id, Date.now())
      .first<{ id: number }>();
    const out = await sweepUnpublishedReports(createServices(env));
    expect(out.rows.deleted).toBe(2500);
    expect(out.reports.deleted).toBe(1);
    const ids = (
      await env.DB.prepare("SELECT report_id AS id FROM dmarc_reports WHERE domain_id = ? ORDER BY id").bind(d.id).all<{ id: string }>()
    ).results.map((r) => r.id);
    expect(ids.sort()).toEqual(["kept", "young"]);
    void young;
  });
});
