// Reads and deletes of the D1 report tables left by migration 0008 (legacy_dmarc_reports,
// legacy_dmarc_rows, legacy_tls_*): no other code names them, and they are not in the drizzle schema,
// so every statement here is plain SQL (docs/decisions.md D130). Does I/O (D1).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";

export const LEGACY_TABLES = ["legacy_dmarc_rows", "legacy_dmarc_reports", "legacy_tls_failures", "legacy_tls_policies", "legacy_tls_reports"] as const;
export type LegacyTable = (typeof LEGACY_TABLES)[number];

export interface LegacyReport {
  id: number;
  domainId: number;
  orgName: string;
  reportId: string;
  email: string | null;
  version: string | null;
  dateBegin: number;
  dateEnd: number;
  records: number;
  policy: string | null;
  status: "processing" | "complete";
  receivedAt: number;
  /** Its rows in legacy_dmarc_rows. */
  rows: number;
}

export type LegacyRow = [
  number,
  string,
  string,
  string | null,
  string | null,
  number,
  number,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  number,
];

/** The legacy tables still present (a moved-out table is dropped). */
export async function presentTables(svc: Services): Promise<LegacyTable[]> {
  const names = sql.join(
    LEGACY_TABLES.map((t) => sql`${t}`),
    sql`, `,
  );
  const rows = await svc.db.all<{ name: string }>(sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${names})`);
  const present = new Set(rows.map((r) => r.name));
  return LEGACY_TABLES.filter((t) => present.has(t));
}

/** Rows of one present legacy table. */
export async function countRows(svc: Services, table: LegacyTable): Promise<number> {
  const r = await svc.db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${sql.identifier(table)}`);
  return Number(r[0]?.n ?? 0);
}

export async function countDomains(svc: Services): Promise<number> {
  const r = await svc.db.all<{ n: number }>(sql`SELECT COUNT(DISTINCT domain_id) AS n FROM legacy_dmarc_reports`);
  return Number(r[0]?.n ?? 0);
}

/**
 * The next batch: reports of the lowest domain id still holding legacy reports, oldest first (the
 * renamed (domain_id, date_end) index serves the order), until
 * they hold at least `rowBudget` rows (always at least one report, however big). Null when none is left.
 */
export async function nextBatch(svc: Services, rowBudget: number): Promise<{ domainId: number; reports: LegacyReport[] } | null> {
  const first = await svc.db.all<{ domain_id: number }>(sql`SELECT domain_id FROM legacy_dmarc_reports ORDER BY domain_id LIMIT 1`);
  const domainId = first[0]?.domain_id;
  if (domainId === undefined) return null;
  // One report holds at least one row (an empty one only its report row): rowBudget reports always suffice.
  const candidates = await svc.db.all<Record<string, unknown>>(sql`
    SELECT p.id, p.domain_id, p.org_name, p.report_id, p.email, p.version, p.date_begin, p.date_end, p.records, p.policy, p.status,
      p.created_at AS received_at, (SELECT COUNT(*) FROM legacy_dmarc_rows r WHERE r.report_id = p.id) AS row_count
    FROM legacy_dmarc_reports p WHERE p.domain_id = ${domainId} ORDER BY p.date_end, p.id LIMIT ${Math.max(1, Math.min(rowBudget, 100))}`);
  const reports: LegacyReport[] = [];
  let rows = 0;
  for (const c of candidates) {
    if (reports.length > 0 && rows + Number(c.row_count) > rowBudget) break;
    reports.push({
      id: Number(c.id),
      domainId,
      orgName: String(c.org_name),
      reportId: String(c.report_id),
      email: c.email === null ? null : String(c.email),
      version: c.version === null ? null : String(c.version),
      dateBegin: Number(c.date_begin),
      dateEnd: Number(c.date_end),
      records: Number(c.records),
      policy: c.policy === null ? null : String(c.policy),
      status: c.status === "complete" ? "complete" : "processing",
      receivedAt: Number(c.received_at),
      rows: Number(c.row_count),
    });
    rows += Number(c.row_count);
  }
  return { domainId, reports };
}

/** Rows read per D1 query: a 100,000-record report's rows come in pages, never in one answer. */
const ROWS_PER_READ = 5_000;

/** Every row of the given legacy reports, by report, in id order (a few queries per batch, not one per report). */
export async function reportRows(svc: Services, reportIds: number[]): Promise<Map<number, LegacyRow[]>> {
  const out = new Map<number, LegacyRow[]>(reportIds.map((id) => [id, []]));
  if (reportIds.length === 0) return out;
  const list = sql.join(
    reportIds.map((id) => sql`${id}`),
    sql`, `,
  );
  let after = 0;
  for (;;) {
    const page = await svc.db.all<Record<string, unknown>>(sql`
      SELECT id, report_id, day, source_ip, header_from, disposition, dkim_aligned, spf_aligned, dkim_domain, dkim_selector, dkim_result,
        spf_domain, spf_result, messages
      FROM legacy_dmarc_rows WHERE report_id IN (${list}) AND id > ${after} ORDER BY id LIMIT ${ROWS_PER_READ}`);
    for (const r of page) {
      out
        .get(Number(r.report_id))
        ?.push([
          Number(r.id),
          String(r.day),
          String(r.source_ip),
          (r.header_from as string | null) ?? null,
          (r.disposition as string | null) ?? null,
          Number(r.dkim_aligned),
          Number(r.spf_aligned),
          (r.dkim_domain as string | null) ?? null,
          (r.dkim_selector as string | null) ?? null,
          (r.dkim_result as string | null) ?? null,
          (r.spf_domain as string | null) ?? null,
          (r.spf_result as string | null) ?? null,
          Number(r.messages),
        ]);
    }
    if (page.length < ROWS_PER_READ) return out;
    after = Number(page[page.length - 1]?.id);
  }
}

/**
 * Deletes the given legacy reports and their rows, rows first (they reference the report). Two
 * statements, not one batch: a crash between them leaves a report without rows, which the next run
 * finds already in its object (a duplicate) and deletes.
 */
export async function deleteReports(svc: Services, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const list = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  await svc.db.run(sql`DELETE FROM legacy_dmarc_rows WHERE report_id IN (${list})`);
  await svc.db.run(sql`DELETE FROM legacy_dmarc_reports WHERE id IN (${list})`);
}

/** Drops the DMARC legacy tables once both are empty (rows first). True when dropped now. */
export async function dropDmarcIfEmpty(svc: Services): Promise<boolean> {
  const present = await presentTables(svc);
  if (!present.includes("legacy_dmarc_reports") && !present.includes("legacy_dmarc_rows")) return false;
  for (const t of ["legacy_dmarc_reports", "legacy_dmarc_rows"] as const) {
    if (present.includes(t) && (await svc.db.all(sql`SELECT 1 FROM ${sql.identifier(t)} LIMIT 1`)).length > 0) return false;
  }
  await svc.db.run(sql`DROP TABLE IF EXISTS legacy_dmarc_rows`);
  await svc.db.run(sql`DROP TABLE IF EXISTS legacy_dmarc_reports`);
  return true;
}
