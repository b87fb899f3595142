// The sweep of reports stored in a domain's object whose D1 step never ran (docs/decisions.md D160): the
// Worker died between the object write and the D1 batch, and no copy of the report came again. Every
// minute, each report whose due row (summary-due.ts) is older than its grace gets the same D1 step a
// re-sent copy would run, under the same summarising lease (D159): absolute totals, the event under its
// identity-derived id, so a second run or a late copy counts nothing twice. Does I/O (D1, report objects).
import { asc, eq, lte } from "drizzle-orm";
import { domains, reportSummariesDue } from "../../db/schema";
import type { Services } from "../../services";
import { domainStore } from "../domains/domain-store";
import { newSenderCandidates } from "../dmarc/new-sender";
import { parsedFromStore } from "../dmarc/replay";
import { summariseReport } from "../dmarc/store";
import { type DueReport, forgetDue } from "../dmarc/summary-due";
import { summariseTlsReport } from "../tls-reports/store";

/** Reports swept per run (each is a few D1 statements and object calls); more wait for the next minute. */
export const SWEEP_BATCH = 50;

type Target = { id: number; teamId: number; name: string };
type Outcome = "summarised" | "cleared" | "busy";

async function sweepDmarc(svc: Services, target: Target, due: DueReport, now: Date): Promise<Outcome> {
  const object = domainStore(svc, target);
  const replay = await object.replayDmarc(due.orgName, due.reportId);
  if (replay === "summarising") return "busy";
  if (replay === null || replay === "duplicate") {
    // Summarised meanwhile, or never stored (the copy died before the object write): nothing is due.
    await forgetDue(svc, due);
    return "cleared";
  }
  const parsed = parsedFromStore(replay);
  const probe = newSenderCandidates(parsed).map(([ip]) => ip);
  const seenIps = probe.length > 0 ? await object.seenIps(replay.result.ref, probe) : [];
  await summariseReport(svc, target, parsed, { ...replay.result, seenIps }, now);
  return "summarised";
}

async function sweepTls(svc: Services, target: Target, due: DueReport, now: Date): Promise<Outcome> {
  const replay = await domainStore(svc, target).replayTls(due.orgName, due.reportId);
  if (replay === "summarising") return "busy";
  if (replay === null || replay === "duplicate") {
    await forgetDue(svc, due);
    return "cleared";
  }
  const { report } = replay;
  await summariseTlsReport(
    svc,
    target,
    { ...report, begin: new Date(report.dateBegin), end: new Date(report.dateEnd), policies: replay.policies },
    report.via,
    replay.ref,
    now,
  );
  return "summarised";
}

export async function sweepUnsummarised(svc: Services): Promise<Record<Outcome | "failed", number>> {
  const now = svc.clock.now();
  const due = await svc.db
    .select({
      domainId: reportSummariesDue.domainId,
      kind: reportSummariesDue.kind,
      orgName: reportSummariesDue.orgName,
      reportId: reportSummariesDue.reportId,
      teamId: domains.teamId,
      name: domains.name,
    })
    .from(reportSummariesDue)
    .innerJoin(domains, eq(domains.id, reportSummariesDue.domainId))
    .where(lte(reportSummariesDue.dueAt, now))
    .orderBy(asc(reportSummariesDue.dueAt))
    .limit(SWEEP_BATCH);
  const counts = { summarised: 0, cleared: 0, busy: 0, failed: 0 };
  for (const row of due) {
    const target = { id: row.domainId, teamId: row.teamId, name: row.name };
    const report: DueReport = { domainId: row.domainId, kind: row.kind, orgName: row.orgName, reportId: row.reportId };
    try {
      counts[await (row.kind === "dmarc" ? sweepDmarc : sweepTls)(svc, target, report, now)]++;
    } catch (e) {
      // One report failing (D1 down again) leaves its due row for the next run; the others go on.
      counts.failed++;
      console.error(JSON.stringify({ level: "error", msg: "report summary sweep failed", domain_id: row.domainId, kind: row.kind, error: String(e) }));
    }
  }
  return counts;
}
