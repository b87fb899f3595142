// The webhook log mover (docs/decisions.md D145): the deliveries that migration 0010 left in D1
// (legacy_deliveries) move into their team's webhook log object with their event's body, KEEPING their
// ids and states, in bounded batches, as the every-minute cron's `webhook-log-moves` job. What is left
// in the legacy table IS the work list, so the job resumes wherever a crash or its budget stopped it:
//   1. the next batch: the lowest endpoint id still holding legacy deliveries (the table's
//      (endpoint_id, created_at) index serves it), up to 500 of its deliveries oldest first, each with its
//      event; they go into the endpoint's team's object insert-or-ignore by id (a re-run adds nothing);
//   2. they are deleted from D1, then the batch's fanned-out events that no legacy delivery references;
//   3. once the table is empty it is dropped, then the remaining fanned-out events (those no endpoint
//      took) are deleted in batches: D1 keeps only the outbox.
// Pending deliveries arrive pending: the object's alarm sends them (D144). Plain SQL over the legacy
// table, as in legacy.ts. Does I/O (D1, the team objects).
import { sql } from "drizzle-orm";
import type { LegacyDelivery } from "../../durable-objects/team-webhooks/types";
import type { Services } from "../../services";
import { teamLog } from "../webhooks/team-log";

/** Deliveries per batch (one object call and a few D1 statements). */
export const WEBHOOK_MOVE_BATCH = 500;
/** Wall time one tick spends moving. */
export const WEBHOOK_MOVE_BUDGET_MS = 20_000;
/** Batches one tick runs at most: one object call each, far below the subrequests an invocation may make. */
export const WEBHOOK_MOVE_BATCHES_PER_TICK = 40;
/** Fanned-out events deleted per statement once the table is gone. */
const EVENT_PURGE_BATCH = 2_000;

export interface WebhookMoveOutcome {
  batches: number;
  deliveries: number;
  /** Fanned-out D1 events deleted. */
  events: number;
  /** legacy_deliveries dropped in this run. */
  dropped: boolean;
  /** True when the budget ran out with work left. */
  more: boolean;
}

/** A list as ONE bound JSON parameter (`IN (SELECT value FROM json_each(...))`): a batch of 500 ids would
 *  pass D1's 100 bound parameters per statement. */
const jsonList = (list: Array<number | string>) => sql`(SELECT value FROM json_each(${JSON.stringify(list)}))`;
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
const int = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const json = (v: unknown): unknown => {
  if (typeof v !== "string") return null;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
};

export async function legacyDeliveriesPresent(svc: Services): Promise<boolean> {
  const r = await svc.db.all(sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'legacy_deliveries'`);
  return r.length > 0;
}

/** Rows left in legacy_deliveries, or null once it is dropped. */
export async function legacyDeliveriesLeft(svc: Services): Promise<number | null> {
  if (!(await legacyDeliveriesPresent(svc))) return null;
  const r = await svc.db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM legacy_deliveries`);
  return Number(r[0]?.n ?? 0);
}

/** True while D1 holds an event fanned out by the release before the team logs. */
export async function fannedOutEventsLeft(svc: Services): Promise<boolean> {
  return (await svc.db.all(sql`SELECT 1 FROM events WHERE fanned_out_at IS NOT NULL LIMIT 1`)).length > 0;
}

function legacyDelivery(r: Record<string, unknown>): LegacyDelivery {
  const status = r.status === "delivered" || r.status === "failed" ? r.status : "pending";
  const headers = json(r.response_headers);
  return {
    id: Number(r.id),
    endpointId: Number(r.endpoint_id),
    eventId: String(r.event_id),
    eventType: String(r.event_type),
    status,
    attempts: Number(r.attempts ?? 0),
    responseStatus: int(r.response_status),
    responseBody: text(r.response_body),
    responseHeaders: headers !== null && typeof headers === "object" && !Array.isArray(headers) ? (headers as Record<string, string>) : null,
    error: text(r.error),
    durationMs: int(r.duration_ms),
    nextRetryAt: int(r.next_retry_at),
    leasedUntil: int(r.leased_until),
    deliveredAt: int(r.delivered_at),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    event: {
      id: String(r.event_id),
      domainId: int(r.ev_domain_id),
      type: String(r.ev_type ?? r.event_type),
      payload: typeof r.ev_payload === "string" ? r.ev_payload : "null",
      createdAt: Number(r.ev_created_at ?? r.created_at),
    },
  };
}

/** Moves the next batch; the number of deliveries moved (0 when none is left). */
export async function moveDeliveryBatch(svc: Services, size = WEBHOOK_MOVE_BATCH): Promise<number> {
  const first = await svc.db.all<{ endpoint_id: number }>(sql`SELECT endpoint_id FROM legacy_deliveries ORDER BY endpoint_id LIMIT 1`);
  const endpointId = first[0]?.endpoint_id;
  if (endpointId === undefined) return 0;
  const rows = await svc.db.all<Record<string, unknown>>(sql`
    SELECT d.*, e.domain_id AS ev_domain_id, e.type AS ev_type, e.payload AS ev_payload, e.created_at AS ev_created_at
    FROM legacy_deliveries d LEFT JOIN events e ON e.id = d.event_id
    WHERE d.endpoint_id = ${endpointId} ORDER BY d.created_at, d.id LIMIT ${size}`);
  const byTeam = new Map<number, LegacyDelivery[]>();
  for (const r of rows) {
    const teamId = Number(r.team_id);
    byTeam.set(teamId, [...(byTeam.get(teamId) ?? []), legacyDelivery(r)]);
  }
  for (const [teamId, list] of byTeam) await teamLog(svc, { id: teamId }).importLegacy(teamId, list);
  const moved = rows.map((r) => Number(r.id));
  const eventIds = [...new Set(rows.map((r) => String(r.event_id)))];
  await svc.db.run(sql`DELETE FROM legacy_deliveries WHERE id IN ${jsonList(moved)}`);
  await svc.db.run(sql`
    DELETE FROM events WHERE id IN ${jsonList(eventIds)} AND fanned_out_at IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM legacy_deliveries d WHERE d.event_id = events.id)`);
  console.log(JSON.stringify({ level: "info", msg: "webhook log move batch", endpoint_id: endpointId, teams: [...byTeam.keys()], deliveries: rows.length }));
  return rows.length;
}

/** The cron job: batches until none is left or the budget is spent; then the table and the old events go. */
export async function moveLegacyDeliveries(svc: Services, budgetMs = WEBHOOK_MOVE_BUDGET_MS, size = WEBHOOK_MOVE_BATCH): Promise<WebhookMoveOutcome> {
  const out: WebhookMoveOutcome = { batches: 0, deliveries: 0, events: 0, dropped: false, more: false };
  const started = Date.now();
  const spent = () => Date.now() - started >= budgetMs || out.batches >= WEBHOOK_MOVE_BATCHES_PER_TICK;
  if (await legacyDeliveriesPresent(svc)) {
    for (;;) {
      const moved = await moveDeliveryBatch(svc, size);
      if (moved === 0) {
        await svc.db.run(sql`DROP TABLE IF EXISTS legacy_deliveries`);
        out.dropped = true;
        break;
      }
      out.batches++;
      out.deliveries += moved;
      if (spent()) {
        out.more = true;
        break;
      }
    }
  }
  // The events the old release fanned out that no endpoint took (none are referenced once the table is gone).
  while (!out.more && !(await legacyDeliveriesPresent(svc))) {
    const gone = await svc.db.all(sql`
      DELETE FROM events WHERE id IN (SELECT id FROM events WHERE fanned_out_at IS NOT NULL LIMIT ${EVENT_PURGE_BATCH}) RETURNING 1 AS one`);
    out.events += gone.length;
    if (gone.length < EVENT_PURGE_BATCH) break;
    if (spent()) out.more = true;
  }
  if (out.batches > 0 || out.dropped || out.events > 0) console.log(JSON.stringify({ level: out.more ? "warn" : "info", msg: "webhook log moves", ...out }));
  return out;
}
