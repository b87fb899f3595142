// The D1 rows that remember a report's D1 step is due (docs/decisions.md D160): written before the report
// goes into the domain's object, deleted inside the batch that summarises it, so a row older than a
// minute is a report whose step never ran (the Worker died between the two, and no copy came again).
// Shared by DMARC and TLS reports. Does I/O (D1).
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { reportSummariesDue } from "../../db/schema";
import type { Services } from "../../services";
import type { Statement } from "../commit";

export type DueKind = "dmarc" | "tls";

/** A report's D1 step is swept this long after it arrived: longer than a copy's summarising lease (D159). */
export const SUMMARY_GRACE_MS = 60_000;

export interface DueReport {
  domainId: number;
  kind: DueKind;
  orgName: string;
  reportId: string;
}

const where = (r: DueReport) =>
  and(
    eq(reportSummariesDue.domainId, r.domainId),
    eq(reportSummariesDue.kind, r.kind),
    eq(reportSummariesDue.orgName, r.orgName),
    eq(reportSummariesDue.reportId, r.reportId),
  );

/** Before the object write: the report's step is due a minute from now (a row already there stays as it is). */
export async function markDue(svc: Services, r: DueReport, now: Date): Promise<void> {
  await svc.db
    .insert(reportSummariesDue)
    .values({ ...r, dueAt: new Date(now.getTime() + SUMMARY_GRACE_MS) })
    .onConflictDoNothing();
}

/** In the summarising batch: the step ran, so nothing is due. */
export const dueDone = (db: Db, r: DueReport): Statement => db.delete(reportSummariesDue).where(where(r));

/** A copy that found the report already summarised: its own due row goes. */
export async function forgetDue(svc: Services, r: DueReport): Promise<void> {
  await svc.db.delete(reportSummariesDue).where(where(r));
}
