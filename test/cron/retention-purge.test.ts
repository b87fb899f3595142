// Retention purges catch up with any backlog in bounded steps and say what is left: the DMARC daily
// summaries after 31 days, refusal counts by plan (docs/limits.md, docs/decisions.md D137; the report rows
// are purged by each domain's object, D123).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { HISTORY_DAYS } from "../../src/lib/retention";
import { purgeResolvedAlerts, RESOLVED_ALERT_DAYS } from "../../src/services/alerts/retention";
import { purgeRetiredKeys } from "../../src/services/dkim-inventory/retention";
import { purgeDmarcData, SUMMARY_DAYS } from "../../src/services/dmarc/retention";
import { PURGE_BATCH, PURGE_DOMAINS } from "../../src/services/purge";
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

describe("DMARC retention in D1", () => {
  it("every plan keeps 31 days of daily summaries (the alerts' window), older ones go whatever the backlog", async () => {
    const starter = await makeTeam("starter");
    const enterprise = await makeTeam("enterprise");
    const s = await makeDomain(starter.id);
    const e = await makeDomain(enterprise.id);
    expect(SUMMARY_DAYS).toBe(31);
    await summaries(s.id, SUMMARY_DAYS + 1, PURGE_BATCH + 5); // past the window, more rows than one statement used to take
    await summaries(s.id, SUMMARY_DAYS - 2, 3); // days 29, 30, 31: kept
    await summaries(e.id, SUMMARY_DAYS + 1, 3); // enterprise keeps 730 days of reports, but not here
    await summaries(e.id, SUMMARY_DAYS, 1); // day 31: the oldest day kept
    const out = await purgeDmarcData(createServices(env));
    expect(out.dmarc_daily).toEqual({ deleted: PURGE_BATCH + 5 + 3, more: false });
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_daily WHERE domain_id = ?", s.id)).toBe(3);
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_daily WHERE domain_id = ?", e.id)).toBe(1);
  });

  it("refusal counts follow the plan's DMARC retention: starter 90 days, enterprise 730", async () => {
    const starter = await makeTeam("starter");
    const enterprise = await makeTeam("enterprise");
    const s = await makeDomain(starter.id);
    const e = await makeDomain(enterprise.id);
    const refusal = (domainId: number, daysAgo: number) =>
      env.DB.prepare("INSERT INTO dmarc_refusals (domain_id, day, reason, count) VALUES (?, ?, 'quota', 1)").bind(domainId, dayText(daysAgo)).run();
    for (const [d, days] of [
      [s.id, 91],
      [s.id, 89],
      [e.id, 400],
      [e.id, 731],
    ] as const) {
      await refusal(d, days);
    }
    const out = await purgeDmarcData(createServices(env));
    expect(out.dmarc_refusals).toEqual({ deleted: 2, more: false });
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_refusals WHERE domain_id = ?", s.id)).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM dmarc_refusals WHERE domain_id = ?", e.id)).toBe(1);
  });

  it("walks the domains 100 at a time: out of budget it says more is left, and the next run finishes", async () => {
    const team = await makeTeam("starter");
    const many = [];
    for (let i = 0; i < PURGE_DOMAINS + 1; i++) many.push(await makeDomain(team.id));
    for (const d of many) await summaries(d.id, 40, 2);
    const first = await purgeDmarcData(createServices(env), 0);
    expect(first.dmarc_daily?.more).toBe(true);
    const second = await purgeDmarcData(createServices(env));
    expect(second.dmarc_daily?.more).toBe(false);
    for (const d of many) expect(await count("SELECT COUNT(*) AS n FROM dmarc_daily WHERE domain_id = ?", d.id)).toBe(0);
  });
});

describe("alert retention", () => {
  it("deletes alerts resolved more than 90 days ago; open alerts and recently resolved ones stay", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const now = Date.now();
    const alert = (subject: string, resolvedDaysAgo: number | null) =>
      env.DB.prepare(
        "INSERT INTO alerts (team_id, domain_id, kind, subject, severity, title, created_at, updated_at, resolved_at) VALUES (?, ?, 'drift', ?, 'Medium', 't', ?, ?, ?)",
      )
        .bind(team.id, d.id, subject, now - 400 * DAY, now, resolvedDaysAgo === null ? null : now - resolvedDaysAgo * DAY)
        .run();
    await alert("open", null);
    await alert("resolved-89", 89);
    await alert("resolved-91", 91);
    expect(RESOLVED_ALERT_DAYS).toBe(90);
    expect(await purgeResolvedAlerts(createServices(env))).toEqual({ deleted: 1, more: false });
    const left = await env.DB.prepare("SELECT subject FROM alerts WHERE domain_id = ? ORDER BY subject").bind(d.id).all<{ subject: string }>();
    expect(left.results.map((r) => r.subject)).toEqual(["open", "resolved-89"]);
  });
});

describe("DKIM key history retention", () => {
  it("deletes keys retired more than 400 days ago; the current key and keys retired since stay", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const now = Date.now();
    const selector = await env.DB.prepare(
      "INSERT INTO dkim_selectors (domain_id, selector, source, status, health, rotations, created_at) VALUES (?, 'google', 'discovered', 'active', 'pass', 2, ?) RETURNING id",
    )
      .bind(d.id, now - 900 * DAY)
      .first<number>("id");
    const key = (fingerprint: string, retiredDaysAgo: number | null) =>
      env.DB.prepare(
        "INSERT INTO dkim_keys (selector_id, fingerprint, type, bits, record, first_seen_at, last_seen_at, retired_at, retired_reason) VALUES (?, ?, 'rsa', 2048, 'v=DKIM1; p=x', ?, ?, ?, ?)",
      )
        .bind(
          selector,
          fingerprint,
          now - 900 * DAY,
          now,
          retiredDaysAgo === null ? null : now - retiredDaysAgo * DAY,
          retiredDaysAgo === null ? null : "rotated",
        )
        .run();
    await key("current", null);
    await key("retired-399", 399);
    await key("retired-401", 401);
    expect(HISTORY_DAYS).toBe(400);
    expect(await purgeRetiredKeys(createServices(env))).toEqual({ deleted: 1, more: false });
    const left = await env.DB.prepare("SELECT fingerprint FROM dkim_keys WHERE selector_id = ? ORDER BY fingerprint")
      .bind(selector)
      .all<{ fingerprint: string }>();
    expect(left.results.map((r) => r.fingerprint)).toEqual(["current", "retired-399"]);
  });
});
