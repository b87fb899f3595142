// Writing one DMARC aggregate report into the domain's object: identity, report row and aggregated rows
// in ONE SQLite transaction, then the absolute totals of the days it touches (docs/decisions.md D122).
import { and, eq, sql } from "drizzle-orm";
import { chunks, col, dayOf, num, type StoreDb } from "./db";
import { reports } from "./schema";
import type { DayTotals, DmarcIngestInput, DmarcIngestResult, DmarcReplay } from "./types";

/** Failing sources listed per day in the summary. */
export const TOP_FAILING = 5;

const PASS = sql`CASE WHEN dkim_aligned = 1 OR spf_aligned = 1 THEN messages ELSE 0 END`;

/** Absolute totals of the given days over every stored report (reports counted on their first day). */
export function dayTotals(db: StoreDb, days: string[]): DayTotals[] {
  return days.map((day) => {
    const start = Date.parse(`${day}T00:00:00Z`);
    const m = db.get<{ messages: number | null; pass: number | null }>(
      sql`SELECT SUM(messages) AS messages, SUM(${PASS}) AS pass FROM rows WHERE day = ${day}`,
    );
    const r = db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM reports WHERE date_begin >= ${start} AND date_begin < ${start + 86_400_000}`);
    const top = db.all<{ ip: string; fail: number }>(sql`
      SELECT source_ip AS ip, SUM(messages) AS fail FROM rows WHERE day = ${day} AND dkim_aligned = 0 AND spf_aligned = 0
      GROUP BY source_ip ORDER BY fail DESC, ip LIMIT ${TOP_FAILING}`);
    const messages = num(m?.messages);
    const pass = num(m?.pass);
    return { day, reports: num(r?.n), messages, pass, fail: messages - pass, top: top.map((t) => ({ ip: t.ip, fail: num(t.fail) })) };
  });
}

/** The next value of the object's write counter (kept in its KV storage, same transaction). */
export function nextSeq(kv: SyncKvStorage): number {
  const seq = (kv.get<number>("seq") ?? 0) + 1;
  kv.put("seq", seq);
  return seq;
}

function seenIps(db: StoreDb, ips: string[], ref: number): string[] {
  if (ips.length === 0) return [];
  const list = sql.join(
    ips.slice(0, 90).map((ip) => sql`${ip}`),
    sql`, `,
  );
  // Rows of other reports, and rolled-up rows (no report): "seen before" for the new-sender rule (D103).
  return db
    .all<{ ip: string }>(sql`SELECT DISTINCT source_ip AS ip FROM rows WHERE source_ip IN (${list}) AND (report_ref IS NULL OR report_ref <> ${ref})`)
    .map((r) => r.ip);
}

function touchedDays(db: StoreDb, ref: number, dateBegin: number): string[] {
  const days = new Set(db.all<{ day: string }>(sql`SELECT DISTINCT day FROM rows WHERE report_ref = ${ref}`).map((d) => d.day));
  days.add(dayOf(dateBegin));
  return [...days].sort();
}

/**
 * The stored, unsummarised report (org, report id) with what its D1 step needs, as a re-sent copy would
 * get it (a new sequence number, the absolute totals of its days), or its status when there is nothing
 * to replay: "duplicate" once summarised, null when the object never stored it.
 */
export function replayOf(db: StoreDb, kv: SyncKvStorage, orgName: string, reportId: string): DmarcReplay | "duplicate" | null {
  const r = db
    .select()
    .from(reports)
    .where(and(eq(reports.orgName, orgName), eq(reports.reportId, reportId)))
    .get();
  if (!r) return null;
  if (r.summarisedAt !== null) return "duplicate";
  const rows = db.get<{ t: string }>(sql`
    SELECT json_group_array(json_array(day, source_ip, header_from, disposition, dkim_aligned, spf_aligned, dkim_domain, dkim_selector,
      dkim_result, spf_domain, spf_result, messages)) AS t FROM (SELECT * FROM rows WHERE report_ref = ${r.id} ORDER BY id)`);
  return {
    result: { status: "replay", ref: r.id, receivedAt: r.receivedAt, seq: nextSeq(kv), days: dayTotals(db, touchedDays(db, r.id, r.dateBegin)), seenIps: [] },
    report: {
      orgName: r.orgName,
      reportId: r.reportId,
      email: r.email,
      version: r.version,
      dateBegin: r.dateBegin,
      dateEnd: r.dateEnd,
      records: r.records,
      policy: r.policy,
    },
    rowsJson: rows?.t ?? "[]",
  };
}

/** Which of `ips` rows of other reports (or rolled-up rows) already show: "seen before" (D103). */
export const seenBefore = (db: StoreDb, ref: number, ips: string[]): string[] => seenIps(db, ips, ref);

export function ingestDmarc(db: StoreDb, kv: SyncKvStorage, input: DmarcIngestInput): DmarcIngestResult {
  const existing = db
    .select({ id: reports.id, receivedAt: reports.receivedAt, summarisedAt: reports.summarisedAt, dateBegin: reports.dateBegin })
    .from(reports)
    .where(and(eq(reports.orgName, input.orgName), eq(reports.reportId, input.reportId)))
    .get();
  if (existing) {
    const seq = nextSeq(kv);
    if (existing.summarisedAt !== null) return { status: "duplicate", ref: existing.id, receivedAt: existing.receivedAt, seq, days: [], seenIps: [] };
    // Stored, but the worker never confirmed its D1 step: this copy redoes that step with the same totals.
    return {
      status: "replay",
      ref: existing.id,
      receivedAt: existing.receivedAt,
      seq,
      days: dayTotals(db, touchedDays(db, existing.id, existing.dateBegin)),
      seenIps: seenIps(db, input.probeIps ?? [], existing.id),
    };
  }
  const rows = input.rows.filter((r) => r[11] > 0);
  let messages = 0;
  let pass = 0;
  for (const r of rows) {
    messages += r[11];
    if (r[4] === 1 || r[5] === 1) pass += r[11];
  }
  const inserted = db
    .insert(reports)
    .values({
      orgName: input.orgName,
      reportId: input.reportId,
      email: input.email,
      version: input.version,
      dateBegin: input.dateBegin,
      dateEnd: input.dateEnd,
      records: input.records,
      messages,
      pass,
      policy: input.policy === null || input.policy === undefined ? null : JSON.stringify(input.policy),
      receivedAt: input.receivedAt,
      summarisedAt: input.summarised ? input.receivedAt : null,
    })
    .returning({ id: reports.id })
    .get();
  const ref = inserted.id;
  for (const chunk of chunks(rows)) {
    db.run(sql`INSERT INTO rows (report_ref, day, source_ip, header_from, disposition, dkim_aligned, spf_aligned, dkim_domain, dkim_selector,
        dkim_result, spf_domain, spf_result, messages)
      SELECT ${ref}, ${col(0)}, ${col(1)}, ${col(2)}, ${col(3)}, ${col(4)}, ${col(5)}, ${col(6)}, ${col(7)}, ${col(8)}, ${col(9)}, ${col(10)}, ${col(11)}
      FROM json_each(${JSON.stringify(chunk)})`);
  }
  kv.put("retention_days", input.retentionDays);
  return {
    status: "stored",
    ref,
    receivedAt: input.receivedAt,
    seq: nextSeq(kv),
    days: dayTotals(db, touchedDays(db, ref, input.dateBegin)),
    seenIps: seenIps(db, input.probeIps ?? [], ref),
  };
}

export function markSummarised(db: StoreDb, ref: number, nowMs: number): void {
  db.update(reports).set({ summarisedAt: nowMs }).where(eq(reports.id, ref)).run();
}
