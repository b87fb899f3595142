// Writes one parsed DMARC report into one domain (docs/decisions.md D122): the report and its rows go to
// the domain's report object in one transaction, which answers the absolute totals of the days the
// report touches; then ONE D1 batch writes the daily summary, selector evidence, the event and alerts;
// then the object marks the report summarised. A copy arriving before that mark (a crash between the
// two, or a retry) redoes the D1 batch with the same absolute totals: nothing counts twice; a copy
// arriving while another runs that batch is a duplicate (the object's summarising lease, D159). A row in
// D1 says the batch is due until it ran, for the sweep (D160). Does I/O (report object, D1, queue, DNS).
import type { ParsedReport } from "../../core/reports";
import type { DmarcIngestResult, DmarcRowTuple } from "../../durable-objects/domain-store/types";
import { REPORT_LIMITS } from "../../lib/plans";
import type { Services } from "../../services";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import { commitAll } from "../commit";
import { selectorStatements } from "./dkim-evidence";
import { newSenderCandidates, newSenderChanges } from "./new-sender";
import { planOf } from "./quota";
import { domainStore } from "../domains/domain-store";
import { failureSpike } from "./spike";
import { dailyStatements, reporterDayStatement, reportEvent } from "./summary";
import { type DueReport, dueDone, forgetDue, markDue } from "./summary-due";

export interface StoreTarget {
  id: number;
  teamId: number;
  name: string;
}

export interface StoreOutcome {
  duplicate: boolean;
  /** The report's id within the domain's report object. */
  id: number;
  rows: number;
}

function rowTuples(parsed: ParsedReport): DmarcRowTuple[] {
  const out: DmarcRowTuple[] = [];
  for (const r of parsed.rows) {
    if (r.messages <= 0) continue;
    out.push([
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
    ]);
  }
  return out;
}

export async function storeReport(svc: Services, target: StoreTarget, parsed: ParsedReport): Promise<StoreOutcome> {
  const now = svc.clock.now();
  const m = parsed.metadata;
  const object = domainStore(svc, target);
  const due: DueReport = { domainId: target.id, kind: "dmarc", orgName: m.orgName, reportId: m.reportId };
  // Before the object holds the report: if this Worker dies before its D1 step, the sweep finds it (D160).
  await markDue(svc, due, now);
  const stored = await object.ingestDmarc({
    orgName: m.orgName,
    reportId: m.reportId,
    email: m.email,
    version: parsed.version,
    dateBegin: m.begin * 1000,
    dateEnd: m.end * 1000,
    records: parsed.totals.records,
    policy: parsed.policy,
    receivedAt: now.getTime(),
    rows: rowTuples(parsed),
    probeIps: newSenderCandidates(parsed).map(([ip]) => ip),
    retentionDays: REPORT_LIMITS[await planOf(svc, target.id)].retention_days,
  });
  // Another copy runs the D1 step right now (it holds the lease, D159): this one is a duplicate.
  if (stored.status === "summarising") return { duplicate: true, id: stored.ref, rows: 0 };
  if (stored.status === "duplicate") {
    await forgetDue(svc, due);
    return { duplicate: true, id: stored.ref, rows: 0 };
  }
  await summariseReport(svc, target, parsed, stored, now);
  return { duplicate: false, id: stored.ref, rows: parsed.rows.length };
}

/**
 * Steps 2 and 3 for the copy holding the report's lease (or the sweep, D160): ONE D1 batch (daily
 * summary with the object's absolute totals, reporter day, selector evidence, event, alerts, the due row
 * deleted), then the object's mark. A failure frees the lease so the next copy runs the step at once.
 */
export async function summariseReport(svc: Services, target: StoreTarget, parsed: ParsedReport, stored: DmarcIngestResult, now: Date): Promise<void> {
  const { db } = svc;
  const m = parsed.metadata;
  const object = domainStore(svc, target);
  try {
    const messages = parsed.rows.reduce((n, r) => n + r.messages, 0);
    const domainRef = { id: target.id, name: target.name };
    const event = await reportEvent(
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
      JSON.stringify([m.orgName, m.reportId]),
      now,
    );
    // The spike baseline is the days before the report's first day: this batch does not change them.
    const spike = await failureSpike(svc, target, parsed);
    const candidates = newSenderCandidates(parsed);
    const senders = await newSenderChanges(svc, target, parsed, now, candidates, new Set(stored.seenIps));
    const drafts = [...(spike ? [spike] : []), ...senders.drafts];
    const alerts = drafts.length > 0 ? upsertAlerts(db, drafts, now, await openAlertKeys(db, target.teamId, target.id)) : { statements: [], eventIds: [] };
    await commitAll(
      svc,
      [
        ...dailyStatements(db, target.id, stored.days, stored.seq),
        reporterDayStatement(db, target.id, m.orgName, stored.receivedAt),
        ...(await selectorStatements(svc, target, parsed, now)),
        event.statement,
        ...alerts.statements,
        ...senders.statements,
        dueDone(db, { domainId: target.id, kind: "dmarc", orgName: m.orgName, reportId: m.reportId }),
      ],
      [event.id, ...alerts.eventIds, ...senders.eventIds],
    );
  } catch (e) {
    await object.releaseSummary("dmarc", stored.ref).catch(() => undefined);
    throw e;
  }
  await object.markSummarised(stored.ref, now.getTime());
}
