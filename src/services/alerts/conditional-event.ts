// An outbox event row written only when a SQL condition holds at that point of the batch. No I/O here.
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { events } from "../../db/schema";
import { buildEvent, type EventDraft } from "../events/emit";

export interface ConditionalEventOptions {
  /** Table(s) the condition reads; omitted for a bare `SELECT ... WHERE`. */
  from?: SQL;
  where: SQL;
  /** Sets one JSON path of the payload from a SQL expression (e.g. the id of a row inserted earlier in the batch). */
  patch?: { path: string; value: SQL };
  /** The events.domain_id value as SQL, when the domain row is created earlier in the same batch. */
  domainId?: SQL;
}

/**
 * Like buildEvent, but the insert is `INSERT INTO events SELECT ... WHERE <condition>`: inside one
 * db.batch (one transaction) this makes "emit only on the first transition" race-free, e.g. put it
 * before `UPDATE ... WHERE resolved_at IS NULL` with the same condition.
 */
export function buildConditionalEvent(db: Db, draft: EventDraft, now: Date, opts: ConditionalEventOptions) {
  const { id, payload } = buildEvent(db, draft, now);
  const json = JSON.stringify(payload);
  const body = opts.patch ? sql`json_set(${json}, ${opts.patch.path}, ${opts.patch.value})` : sql`${json}`;
  const from = opts.from ? sql` FROM ${opts.from}` : sql``;
  // Column order of `events`: id, team_id, domain_id, type, payload, created_at, fanned_out_at.
  const statement = db.insert(events).select(sql`SELECT ${id}, ${draft.teamId}, ${opts.domainId ?? draft.domain?.id ?? null}, ${draft.type}, ${body},
    ${now.getTime()}, NULL${from} WHERE ${opts.where} LIMIT 1`);
  return { id, payload, statement };
}
