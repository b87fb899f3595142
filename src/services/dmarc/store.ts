// Writes one parsed DMARC report into one domain (docs/decisions.md D122): the report and its rows go to
// the domain's report object in one transaction, which answers the absolute totals of the days the
// report touches; then ONE D1 batch writes the daily summary, selector evidence, the event and alerts;
// then the object marks the report summarised. A copy arriving before that mark (a crash between the
// two, or a retry) redoes the D1 batch with the same absolute totals: nothing counts twice. Does I/O
// (report object, D1, queue, DNS).
import type { ParsedReport } from "../../core/reports";
import type { DmarcRowTuple } from "../../durable-objects/domain-store/types";
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
  const { db } = svc;
  const now = svc.clock.now();
  const m = parsed.metadata;
  const object = domainStore(svc, target);
  const candidates = newSenderCandidates(parsed);
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
    probeIps: candidates.map(([ip]) => ip),
    retentionDays: REPORT_LIMITS[await planOf(svc, target.id)].retention_days,
  });
  if (stored.status === "duplicate") return { duplicate: true, id: stored.ref, rows: 0 };

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
    ],
    [event.id, ...alerts.eventIds, ...senders.eventIds],
  );
  await object.markSummarised(stored.ref, now.getTime());
  return { duplicate: false, id: stored.ref, rows: parsed.rows.length };
}
