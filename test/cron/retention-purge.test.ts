// Retention purges catch up with any backlog in bounded batches and say what is left: the DMARC daily
// summaries by plan (docs/limits.md; the report rows are purged by each domain's object, D123).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { purgeDmarcData } from "../../src/services/dmarc/retention";
import { PURGE_BATCH } from "../../src/services/purge";
import { makeTeam } from "../support/api";
import { makeDomain } from "../support/reports";

const DAY = 86_400_000;
const dayText = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

/** `days` daily summary rows ending `daysAgo` days ago (one INSERT over a recursive counter). */
async function summaries(domainId: number, daysAgo: number, days: number): Promise<void> {
  await env.DB.prepare(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
    INSERT INTO dmarc_daily (domain_id, day, reports, messages, pass, fail, top_failing, seq)
    SELECT ?, date(?, '-' || i || ' days'), 1, 1, 1, 0, '[]', 1 FROM n`)
    .bind(days, domainId, dayText(daysAgo))
    .run();
}
const count = async (sql: string, ...args: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...args)
      .first<{ n: number }>()
  )?.n ?? 0;

describe("DMARC summary retention by plan", () => {
  it("starter keeps 90 days, enterprise 730: older summaries go, newer stay, and a backlog larger than one batch is caught up", async () => {
    const starter = await makeTeam("starter");
    const enterprise = await makeTeam("enterprise");
    const s = await makeDomain(starter.id);
    const e = await makeDomain(enterprise.id);
    await summaries(s.id, 95, PURGE_BATCH + 5); // past starter's 90 days, more rows than one batch
    await summaries(s.id, 85, 3);
    await summaries(e.id, 95, 3); // enterprise keeps them
    await summaries(e.id, 735, 2); // past 730
    const out = await purgeDmarcData(createServices(env));
    expect(out.dmarc_daily).toEqual({ deleted: PURGE_BATCH + 5 + 2, more: false });
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_daily WHERE domain_id = ?", s.id)).toBe(3);
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_daily WHERE domain_id = ?", e.id)).toBe(3);
  });

  it("stops at its time budget and reports that more is left; the next run finishes", async () => {
    const team = await makeTeam("starter");
    const d = await makeDomain(team.id);
    await summaries(d.id, 120, PURGE_BATCH * 2 + 1);
    const first = await purgeDmarcData(createServices(env), 0);
    expect(first.dmarc_daily).toEqual({ deleted: PURGE_BATCH, more: true });
    const second = await purgeDmarcData(createServices(env));
    expect(second.dmarc_daily).toEqual({ deleted: PURGE_BATCH + 1, more: false });
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_daily WHERE domain_id = ?", d.id)).toBe(0);
  });
});
