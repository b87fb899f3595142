// The mover (docs/decisions.md D130-D132): DMARC reports left in D1 by migration 0008 move into each
// domain's report object in bounded batches through the every-minute cron job, with the same totals
// before and after, and a crash after the object write re-runs without double counting. The legacy
// tables are seeded with plain SQL (no code writes them any more). The last test drops them.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { createServices } from "../../src/services";
import { domainStore } from "../../src/services/domains/domain-store";
import { moveBatch, moveLegacyReports } from "../../src/services/report-moves/move";
import { nextBatch } from "../../src/services/report-moves/legacy";
import { moveTlsBatch } from "../../src/services/report-moves/tls";
import { ADMIN_TOKEN, call, json, makeTeam } from "../support/api";
import { insertDomain } from "../support/factories";

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Seeded {
  reports: number;
  messages: number;
  pass: number;
  rows: number;
}

let legacyId = 0;
/** `reports` complete legacy reports of `rowsEach` rows, one per day ending yesterday, as the old ingestion stored them. */
async function seedLegacy(domainId: number, reports: number, rowsEach: number, o: { status?: "complete" | "processing"; org?: string } = {}): Promise<Seeded> {
  const out: Seeded = { reports: 0, messages: 0, pass: 0, rows: 0 };
  const today = Date.now() - (Date.now() % DAY_MS);
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < reports; i++) {
    const id = 900_000 + ++legacyId;
    const begin = today - (i + 1) * DAY_MS;
    let messages = 0;
    for (let k = 0; k < rowsEach; k++) {
      const aligned = k % 4 !== 0 ? 1 : 0;
      const count = 1 + ((k * 7 + i) % 13);
      messages += count;
      if (aligned) out.pass += count;
      statements.push(
        env.DB.prepare(
          `INSERT INTO legacy_dmarc_rows (report_id, domain_id, day, source_ip, header_from, disposition, dkim_aligned, spf_aligned,
            dkim_domain, dkim_selector, dkim_result, spf_domain, spf_result, messages)
           VALUES (?, ?, ?, ?, 'example.com', 'none', ?, ?, 'example.com', 's1', ?, 'example.com', 'pass', ?)`,
        ).bind(id, domainId, dayOf(begin), `192.0.2.${k % 250}`, aligned, aligned, aligned ? "pass" : "fail", count),
      );
    }
    statements.unshift(
      env.DB.prepare(
        `INSERT INTO legacy_dmarc_reports (id, domain_id, org_name, report_id, email, version, date_begin, date_end, records, messages, policy, status, created_at)
         VALUES (?, ?, ?, ?, 'noreply@reporter.example', '1.0', ?, ?, ?, ?, '{"domain":"example.com","p":"none"}', ?, ?)`,
      ).bind(
        id,
        domainId,
        o.org ?? "reporter.example",
        `legacy-${id}`,
        begin,
        begin + DAY_MS - 1000,
        rowsEach,
        messages,
        o.status ?? "complete",
        begin + DAY_MS + 3_600_000,
      ),
    );
    out.reports++;
    out.messages += messages;
    out.rows += rowsEach;
  }
  await env.DB.batch(statements);
  if (o.status === "processing") return { reports: 0, messages: 0, pass: 0, rows: 0 };
  return out;
}

async function legacyLeft(domainId: number): Promise<{ reports: number; rows: number }> {
  const r = await env.DB.prepare(
    "SELECT (SELECT COUNT(*) FROM legacy_dmarc_reports WHERE domain_id = ?1) AS reports, (SELECT COUNT(*) FROM legacy_dmarc_rows WHERE domain_id = ?1) AS rows",
  )
    .bind(domainId)
    .first<{ reports: number; rows: number }>();
  return { reports: r?.reports ?? 0, rows: r?.rows ?? 0 };
}

async function daily(domainId: number): Promise<{ reports: number; messages: number; pass: number }> {
  const r = await env.DB.prepare("SELECT SUM(reports) AS reports, SUM(messages) AS messages, SUM(pass) AS pass FROM dmarc_daily WHERE domain_id = ?")
    .bind(domainId)
    .first<{ reports: number | null; messages: number | null; pass: number | null }>();
  return { reports: r?.reports ?? 0, messages: r?.messages ?? 0, pass: r?.pass ?? 0 };
}

async function view(token: string, domainId: number) {
  const res = await call(`/api/v1/domains/${domainId}/dmarc?days=30`, { token });
  expect(res.status).toBe(200);
  return (await json<{ data: { summary: { reports: number; messages: number }; alignment: { pass: number } } }>(res)).data;
}

describe("report mover", () => {
  it("moves a domain's legacy reports in bounded batches; totals are the same before and after", async () => {
    const team = await makeTeam("pro");
    const d = await insertDomain(team.id);
    const seeded = await seedLegacy(d.id, 6, 200);
    const svc = createServices(env);

    const batches: number[] = [];
    for (let guard = 0; guard < 20; guard++) {
      const left = await legacyLeft(d.id);
      if (left.reports === 0) break;
      batches.push(left.rows);
      // A zero budget stops after one batch: 500 rows holds two reports of 200.
      const out = await moveLegacyReports(svc, 0, 500);
      expect(out.batches).toBe(1);
      expect(out.rows).toBeLessThanOrEqual(500);
    }
    expect(batches).toEqual([1200, 800, 400]);
    expect(await legacyLeft(d.id)).toEqual({ reports: 0, rows: 0 });

    const stats = await domainStore(svc, d).stats();
    expect(stats).toMatchObject({ reports: seeded.reports, rows: seeded.rows, messages: seeded.messages });
    expect(await daily(d.id)).toEqual({ reports: seeded.reports, messages: seeded.messages, pass: seeded.pass });
    const v = await view(team.full, d.id);
    expect(v.summary).toMatchObject({ reports: seeded.reports, messages: seeded.messages });
    expect(v.alignment.pass).toBe(seeded.pass);
    // No event for moved reports: they were announced when they first arrived.
    const events = await env.DB.prepare("SELECT COUNT(*) AS n FROM events WHERE domain_id = ? AND type = 'dmarc.report.received'")
      .bind(d.id)
      .first<{ n: number }>();
    expect(events?.n).toBe(0);
  });

  it("a crash after the object write re-runs without double counting, and a re-run of a finished batch adds nothing", async () => {
    const team = await makeTeam("pro");
    const d = await insertDomain(team.id);
    const seeded = await seedLegacy(d.id, 3, 50);
    const svc = createServices(env);
    const batch = await nextBatch(svc, 10_000);
    expect(batch?.domainId).toBe(d.id);
    const reports = batch?.reports ?? [];
    expect(reports).toHaveLength(3);

    // The worker died after the object stored the first report, before any D1 write: the object
    // holds it unconfirmed, D1 has no summary, the legacy rows are all still there.
    const object = domainStore(svc, d);
    const first = reports[0];
    if (!first) throw new Error("no report");
    const rows = await env.DB.prepare(
      "SELECT day, source_ip, header_from, disposition, dkim_aligned, spf_aligned, dkim_domain, dkim_selector, dkim_result, spf_domain, spf_result, messages FROM legacy_dmarc_rows WHERE report_id = ? ORDER BY id",
    )
      .bind(first.id)
      .raw<[string, string, string | null, string | null, 0 | 1, 0 | 1, string | null, string | null, string | null, string | null, string | null, number]>();
    const crashed = await object.ingestDmarc({ ...first, policy: null, rows, retentionDays: 365 });
    expect(crashed.status).toBe("stored");
    expect(await daily(d.id)).toEqual({ reports: 0, messages: 0, pass: 0 });

    await moveBatch(svc, d.id, reports);
    expect(await legacyLeft(d.id)).toEqual({ reports: 0, rows: 0 });
    expect(await daily(d.id)).toEqual({ reports: seeded.reports, messages: seeded.messages, pass: seeded.pass });
    expect(await object.stats()).toMatchObject({ reports: 3, rows: 150, messages: seeded.messages });

    // The same batch again (a crash after the object confirmed, before the legacy delete): duplicates only.
    await moveBatch(svc, d.id, reports);
    expect(await daily(d.id)).toEqual({ reports: seeded.reports, messages: seeded.messages, pass: seeded.pass });
    expect(await object.stats()).toMatchObject({ reports: 3, rows: 150, messages: seeded.messages });
  });

  it("a report already re-sent after the switch is not counted twice when its legacy copy moves", async () => {
    const team = await makeTeam("pro");
    const d = await insertDomain(team.id);
    const seeded = await seedLegacy(d.id, 2, 10);
    const svc = createServices(env);
    const batch = await nextBatch(svc, 10_000);
    const first = batch?.reports[0];
    if (!first) throw new Error("no report");
    // The new ingestion stored and confirmed the same report (same identity) before the mover came.
    const object = domainStore(svc, d);
    const stored = await object.ingestDmarc({ ...first, policy: null, rows: [], retentionDays: 365 });
    await object.markSummarised(stored.ref, Date.now());
    await moveBatch(svc, d.id, batch?.reports ?? []);
    expect(await legacyLeft(d.id)).toEqual({ reports: 0, rows: 0 });
    expect((await object.stats()).reports).toBe(seeded.reports);
  });

  it("moves a legacy SMTP TLS report with its policy and failure details; a re-run after a crash before the delete adds nothing", async () => {
    const team = await makeTeam("pro");
    const d = await insertDomain(team.id);
    const day = dayOf(Date.now() - 2 * DAY_MS);
    const begin = Date.parse(`${day}T00:00:00Z`);
    const seedTls = () =>
      env.DB.batch([
        env.DB.prepare(
          `INSERT INTO legacy_tls_reports (id, domain_id, org_name, report_id, contact, date_begin, date_end, day, successful, failed, via, created_at)
           VALUES (880001, ?, 'tls.example', 'tls-1', 'tls@tls.example', ?, ?, ?, 90, 10, 'https', ?)`,
        ).bind(d.id, begin, begin + DAY_MS - 1000, day, begin + DAY_MS),
        env.DB.prepare(
          `INSERT INTO legacy_tls_policies (id, report_id, domain_id, day, policy_type, policy_domain, policy_strings, mx_hosts, successful, failed)
           VALUES (880101, 880001, ?, ?, 'sts', ?, '["version: STSv1","mode: enforce"]', '["mx.example.com"]', 90, 10)`,
        ).bind(d.id, day, d.name),
        env.DB.prepare(
          `INSERT INTO legacy_tls_failures (policy_id, domain_id, day, result_type, sending_mta_ip, receiving_mx_hostname, receiving_ip, failed_count, failure_reason_code)
           VALUES (880101, ?1, ?2, 'certificate-expired', '192.0.2.9', 'mx.example.com', NULL, 6, NULL),
                  (880101, ?1, ?2, 'starttls-not-supported', '192.0.2.9', 'mx.example.com', NULL, 4, NULL)`,
        ).bind(d.id, day),
      ]);
    await seedTls();
    const svc = createServices(env);
    expect(await moveTlsBatch(svc)).toBe(1);
    const object = domainStore(svc, d);
    expect((await object.stats()).tlsReports).toBe(1);
    const left = async () =>
      (
        await env.DB.prepare(
          "SELECT (SELECT COUNT(*) FROM legacy_tls_reports) + (SELECT COUNT(*) FROM legacy_tls_policies) + (SELECT COUNT(*) FROM legacy_tls_failures) AS n",
        ).first<{ n: number }>()
      )?.n;
    expect(await left()).toBe(0);
    // As if the worker died after the object write and before the legacy delete: the same rows again.
    await seedTls();
    expect(await moveTlsBatch(svc)).toBe(1);
    expect((await object.stats()).tlsReports).toBe(1);
    expect(await left()).toBe(0);
    expect(await moveTlsBatch(svc)).toBe(0);
  });

  it("the cron moves everything, drops half-written reports, drops the emptied tables, and is then a no-op", async () => {
    const team = await makeTeam("starter");
    const a = await insertDomain(team.id);
    const b = await insertDomain(team.id);
    const sa = await seedLegacy(a.id, 4, 30, { org: "a.example" });
    const sb = await seedLegacy(b.id, 2, 40, { org: "b.example" });
    await seedLegacy(b.id, 1, 5, { status: "processing", org: "half.example" });
    const progress = await call("/admin/report-moves", { token: ADMIN_TOKEN });
    expect(progress.status).toBe(200);
    const before = (await json<{ data: { domains_left: number; dmarc_done: boolean } }>(progress)).data;
    expect(before.domains_left).toBeGreaterThanOrEqual(2);
    expect(before.dmarc_done).toBe(false);

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    const svc = createServices(env);
    expect(await domainStore(svc, a).stats()).toMatchObject({ reports: sa.reports, messages: sa.messages });
    expect(await domainStore(svc, b).stats()).toMatchObject({ reports: sb.reports, messages: sb.messages });
    expect(await daily(b.id)).toEqual({ reports: sb.reports, messages: sb.messages, pass: sb.pass });
    const tables = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'legacy_dmarc%'").all();
    expect(tables.results).toEqual([]);
    const after = await json<{ data: { tables: Array<{ name: string; rows: number | null }>; domains_left: number; dmarc_done: boolean } }>(
      await call("/admin/report-moves", { token: ADMIN_TOKEN }),
    );
    expect(after.data).toMatchObject({ domains_left: 0, dmarc_done: true });
    expect(after.data.tables.filter((t) => t.name.startsWith("legacy_dmarc"))).toEqual([
      { name: "legacy_dmarc_rows", rows: null },
      { name: "legacy_dmarc_reports", rows: null },
    ]);
    expect(await moveLegacyReports(svc)).toEqual({ batches: 0, reports: 0, rows: 0, dropped: false, more: false });
  });
});
