// Retention purges catch up with any backlog in bounded batches and say what is left: DMARC data by
// plan (docs/limits.md), the delivery log past 30 days.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { purgeDmarcData } from "../../src/services/dmarc/retention";
import { PURGE_BATCH } from "../../src/services/purge";
import { makeTeam } from "../support/api";
import { makeDomain } from "../support/reports";

const DAY = 86_400_000;
const dayText = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

async function report(domainId: number, daysAgo: number, rows: number): Promise<number> {
  const end = Date.now() - daysAgo * DAY;
  const r = await env.DB.prepare(
    "INSERT INTO dmarc_reports (domain_id, org_name, report_id, date_begin, date_end, records, messages, status, created_at) VALUES (?, 'r.example', ?, ?, ?, ?, ?, 'complete', ?) RETURNING id",
  )
    .bind(domainId, `rid-${domainId}-${daysAgo}-${Math.random()}`, end - DAY, end, rows, rows, end)
    .first<{ id: number }>();
  const id = r?.id ?? 0;
  // One INSERT ... SELECT over a recursive counter: many rows without many round trips.
  await env.DB.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO dmarc_rows (report_id, domain_id, day, source_ip, dkim_aligned, spf_aligned, messages) SELECT ?, ?, ?, '192.0.2.1', 1, 1, 1 FROM n`)
    .bind(rows, id, domainId, dayText(daysAgo))
    .run();
  return id;
}
const count = async (sql: string, ...args: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...args)
      .first<{ n: number }>()
  )?.n ?? 0;

describe("DMARC retention by plan", () => {
  it("starter keeps 90 days, enterprise 730: older rows and reports go, newer stay, and a backlog larger than one batch is caught up", async () => {
    const starter = await makeTeam("starter");
    const enterprise = await makeTeam("enterprise");
    const s = await makeDomain(starter.id);
    const e = await makeDomain(enterprise.id);
    await report(s.id, 95, PURGE_BATCH + 5); // past starter's 90 days, more rows than one batch
    const keptS = await report(s.id, 85, 3);
    await report(e.id, 95, 3); // enterprise keeps it
    await report(e.id, 735, 2); // past 730
    const out = await purgeDmarcData(createServices(env));
    expect(out.rows.more).toBe(false);
    expect(out.rows.deleted).toBe(PURGE_BATCH + 5 + 2);
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_reports WHERE domain_id = ?", s.id)).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_rows WHERE report_id = ?", keptS)).toBe(3);
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_reports WHERE domain_id = ?", e.id)).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_rows WHERE domain_id = ?", e.id)).toBe(3);
  });

  it("stops at its time budget and reports that more is left; the next run finishes", async () => {
    const team = await makeTeam("starter");
    const d = await makeDomain(team.id);
    await report(d.id, 120, PURGE_BATCH * 2 + 1);
    const first = await purgeDmarcData(createServices(env), 0);
    expect(first.rows).toEqual({ deleted: PURGE_BATCH, more: true });
    const second = await purgeDmarcData(createServices(env));
    expect(second.rows).toEqual({ deleted: PURGE_BATCH + 1, more: false });
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_reports WHERE domain_id = ?", d.id)).toBe(0);
  });
});
