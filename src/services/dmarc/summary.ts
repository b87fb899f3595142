// The D1 side of a stored report (docs/decisions.md D122): the domain's daily summary rows with the
// ABSOLUTE totals its report object answered (kept only when newer by `seq`, so an older copy's late
// write never wins), the reporter's day of arrival, and the report's event under an id derived from
// the report's identity, so a replay of this batch writes nothing twice. No I/O here.
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { dmarcDaily, dmarcReporterDays, events } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import type { Statement } from "../commit";
import type { DayTotals } from "../../durable-objects/domain-store/types";
import { buildEvent, type EventDraft } from "../events/emit";

export function dailyStatements(db: Db, domainId: number, days: DayTotals[], seq: number): Statement[] {
  return days.map((d) =>
    db
      .insert(dmarcDaily)
      .values({ domainId, day: d.day, reports: d.reports, messages: d.messages, pass: d.pass, fail: d.fail, topFailing: d.top, seq })
      .onConflictDoUpdate({
        target: [dmarcDaily.domainId, dmarcDaily.day],
        set: {
          reports: sql`excluded.reports`,
          messages: sql`excluded.messages`,
          pass: sql`excluded.pass`,
          fail: sql`excluded.fail`,
          topFailing: sql`excluded.top_failing`,
          seq: sql`excluded.seq`,
        },
        setWhere: sql`excluded.seq > ${dmarcDaily.seq}`,
      }),
  );
}

export function reporterDayStatement(db: Db, domainId: number, orgName: string, receivedAt: number): Statement {
  return db
    .insert(dmarcReporterDays)
    .values({ domainId, day: new Date(receivedAt).toISOString().slice(0, 10), orgName, lastAt: new Date(receivedAt) })
    .onConflictDoUpdate({
      target: [dmarcReporterDays.domainId, dmarcReporterDays.day, dmarcReporterDays.orgName],
      set: { lastAt: sql`max(${dmarcReporterDays.lastAt}, excluded.last_at)` },
    });
}

/** The report's event, its id derived from (kind, domain, reporter, report id): inserted at most once. */
export async function reportEvent(db: Db, draft: EventDraft & { domain: { id: number; name: string } }, identity: string, now: Date) {
  const id = `evt_${(await sha256Hex(`${draft.type}|${draft.domain.id}|${identity}`)).slice(0, 32)}`;
  const { payload } = buildEvent(db, draft, now);
  const body = { ...payload, id };
  const statement = db
    .insert(events)
    .values({ id, teamId: draft.teamId, domainId: draft.domain.id, type: draft.type, payload: body, createdAt: now })
    .onConflictDoNothing();
  return { id, payload: body, statement };
}
