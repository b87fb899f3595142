// Writes one parsed DMARC report into one domain (docs/decisions.md D16): report row "processing", rows in
// chunked batches, then selectors, event, alert and "complete" in the final batch. Does I/O (D1, queue).
import { and, eq, sql } from "drizzle-orm";
import type { ParsedReport } from "../../core/reports";
import { dmarcReports, dmarcRows } from "../../db/schema";
import type { Services } from "../../services";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import { conflict } from "../../lib/errors";
import { commitAll, type Statement } from "../commit";
import { jsonChunks, jsonCol as col } from "../json-rows";
import { buildConditionalEvent } from "../alerts/conditional-event";
import { selectorStatements } from "./dkim-evidence";
import { newSenderChanges } from "./new-sender";
import { failureSpike } from "./spike";

export interface StoreTarget {
  id: number;
  teamId: number;
  name: string;
}

export interface StoreOutcome {
  duplicate: boolean;
  /** dmarc_reports.id of the stored (or already stored) report. */
  id: number;
  rows: number;
}

/** Statements per db.batch (each batch is one transaction). */
const STATEMENTS_PER_BATCH = 10;

type RowTuple = [string, string, string | null, string | null, 0 | 1, 0 | 1, string | null, string | null, string | null, string | null, string | null, number];

/** The rows as tuples, built lazily so that only the chunks of one batch are in memory. */
function* rowTuples(parsed: ParsedReport): Generator<RowTuple> {
  for (const r of parsed.rows) {
    if (r.messages <= 0) continue;
    const t: RowTuple = [
      r.day,
      r.sourceIp,
      r.headerFrom || null,
      r.disposition || null,
      r.dmarcDkim === "pass" ? 1 : 0,
      r.dmarcSpf === "pass" ? 1 : 0,
      r.dkimDomain,
      r.dkimSelector,
      r.dkimResult,
      r.spfDomain,
      r.spfResult,
      r.messages,
    ];
    yield t;
  }
}

const rowChunks = (parsed: ParsedReport) => jsonChunks(rowTuples(parsed));

export async function storeReport(svc: Services, target: StoreTarget, parsed: ParsedReport): Promise<StoreOutcome> {
  const { db } = svc;
  const now = svc.clock.now();
  const m = parsed.metadata;
  const identity = and(eq(dmarcReports.domainId, target.id), eq(dmarcReports.orgName, m.orgName), eq(dmarcReports.reportId, m.reportId));
  const existing = await db
    .select({ id: dmarcReports.id, status: dmarcReports.status, receivedAt: dmarcReports.receivedAt })
    .from(dmarcReports)
    .where(identity);
  // A copy still "processing" is unpublished: a crash left it, or another copy is being written right
  // now. Either way this copy takes over at once (docs/ingestion.md): the older one's rows go, and if it
  // is alive its remaining writes find its report gone and change nothing, so the report counts once.
  const stale: Statement[] = [];
  for (const e of existing) {
    if (e.status === "complete") return { duplicate: true, id: e.id, rows: 0 };
    stale.push(db.delete(dmarcRows).where(eq(dmarcRows.reportId, e.id)), db.delete(dmarcReports).where(eq(dmarcReports.id, e.id)));
  }

  const messages = parsed.rows.reduce((n, r) => n + r.messages, 0);
  const insert = db
    .insert(dmarcReports)
    .values({
      domainId: target.id,
      orgName: m.orgName,
      reportId: m.reportId,
      email: m.email,
      version: parsed.version,
      dateBegin: new Date(m.begin * 1000),
      dateEnd: new Date(m.end * 1000),
      records: parsed.totals.records,
      messages,
      policy: parsed.policy,
      status: "processing",
      receivedAt: now,
    })
    .returning({ id: dmarcReports.id });
  let reportRowId: number;
  try {
    // Stale leftovers go in the same transaction as the new row; the insert's RETURNING is the last result.
    const results = await commitAll(svc, [...stale, insert]);
    const id = (results.at(-1) as Array<{ id: number }> | undefined)?.[0]?.id;
    if (id === undefined) throw new Error("report insert returned no id");
    reportRowId = id;
  } catch (error) {
    // A concurrent copy won the unique index (dmarc_reports_identity_uq).
    const again = await db.select({ id: dmarcReports.id, status: dmarcReports.status }).from(dmarcReports).where(identity);
    const hit = again[0];
    if (hit?.status === "complete") return { duplicate: true, id: hit.id, rows: 0 };
    if (hit) throw conflict("This report is being ingested right now; retry later.");
    throw error;
  }

  // INSERT ... SELECT names every column of dmarc_rows in table order; the id is left to SQLite (NULL).
  // Every write is conditional on this copy's report row still being unpublished: a newer copy that
  // took over deleted it, and then nothing of this copy lands.
  const stillMine = sql`EXISTS (SELECT 1 FROM dmarc_reports WHERE id = ${reportRowId} AND status = 'processing')`;
  const insertChunk = (json: string): Statement =>
    db.insert(dmarcRows).select(sql`
    SELECT NULL, ${reportRowId}, ${target.id}, ${col(0)}, ${col(1)}, ${col(2)}, ${col(3)}, ${col(4)}, ${col(5)},
      ${col(6)}, ${col(7)}, ${col(8)}, ${col(9)}, ${col(10)}, ${col(11)} FROM json_each(${json}) WHERE ${stillMine}`);

  // Everything that must land together with "complete": the last row chunk(s), evidence, event, alert.
  const domainRef = { id: target.id, name: target.name };
  const event = buildConditionalEvent(
    db,
    {
      type: "dmarc.report.received",
      teamId: target.teamId,
      domain: domainRef,
      data: {
        report: {
          org_name: m.orgName,
          report_id: m.reportId,
          begin: new Date(m.begin * 1000).toISOString(),
          end: new Date(m.end * 1000).toISOString(),
          messages,
          records: parsed.totals.records,
        },
      },
    },
    now,
    { where: stillMine },
  );
  const spike = await failureSpike(svc, target, parsed);
  const senders = await newSenderChanges(svc, target, parsed, now);
  const drafts = [...(spike ? [spike] : []), ...senders.drafts];
  const alerts = drafts.length > 0 ? upsertAlerts(db, drafts, now, await openAlertKeys(db, target.teamId, target.id)) : { statements: [], eventIds: [] };
  const closing: Statement[] = [
    ...(await selectorStatements(svc, target, parsed, now)),
    event.statement,
    ...alerts.statements,
    ...senders.statements,
    db
      .update(dmarcReports)
      .set({ status: "complete" })
      .where(and(eq(dmarcReports.id, reportRowId), eq(dmarcReports.status, "processing")))
      .returning({ id: dmarcReports.id }),
  ];

  let superseded = false;
  try {
    // The last chunk is held back to land in the same transaction as "complete".
    const pending: Statement[] = [];
    let last: Statement | null = null;
    for (const json of rowChunks(parsed)) {
      if (last) pending.push(last);
      last = insertChunk(json);
      if (pending.length === STATEMENTS_PER_BATCH) await commitAll(svc, pending.splice(0));
    }
    if (pending.length > 0) await commitAll(svc, pending.splice(0));
    const results = await commitAll(svc, [...(last ? [last] : []), ...closing], [event.id, ...alerts.eventIds, ...senders.eventIds]);
    const published = (results.at(-1) as Array<{ id: number }> | undefined)?.length ?? 0;
    if (published === 0) superseded = true;
  } catch (error) {
    // Best effort: remove the half-written report now; if this fails too, the processing row is
    // ignored by analytics and replaced by the next copy once stale.
    await commitAll(svc, [
      db.delete(dmarcRows).where(eq(dmarcRows.reportId, reportRowId)),
      db.delete(dmarcReports).where(eq(dmarcReports.id, reportRowId)),
    ]).catch(() => undefined);
    throw error;
  }
  // A newer copy took over while this one was written: it is the one that counts.
  if (superseded) return { duplicate: true, id: reportRowId, rows: 0 };
  return { duplicate: false, id: reportRowId, rows: parsed.rows.length };
}
