// Writing and reading a team's webhook log: the event and its deliveries of one fan-out (insert-or-ignore,
// so a repeated fan-out creates nothing new: docs/decisions.md D141), the test delivery, the endpoint's
// delivery list and one delivery with its event's body, and an endpoint's deletion.
import { and, count, desc, eq, type SQL } from "drizzle-orm";
import { deliveryRecord, nextDeliveryId, type TeamDb } from "./db";
import { deliveries, endpointStreaks, events } from "./schema";
import type { DeliveryListQuery, DeliveryRecord, EventRecord, FanOutInput, FanOutResult, TestDeliveryInput } from "./types";

function storeEvent(db: TeamDb, event: EventRecord): void {
  db.insert(events)
    .values({ id: event.id, domainId: event.domainId, type: event.type, payload: event.payload, createdAt: event.createdAt })
    .onConflictDoNothing()
    .run();
}

function newDelivery(db: TeamDb, kv: SyncKvStorage, event: EventRecord, endpointId: number, nowMs: number, idFloor: number): number | null {
  const existing = db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(and(eq(deliveries.eventId, event.id), eq(deliveries.endpointId, endpointId)))
    .get();
  if (existing) return null;
  const id = nextDeliveryId(kv, idFloor);
  db.insert(deliveries)
    .values({ id, endpointId, eventId: event.id, eventType: event.type, status: "pending", attempts: 0, createdAt: nowMs, updatedAt: nowMs })
    .run();
  return id;
}

/** The event (always) and one pending delivery per endpoint that has none for it yet. */
export function fanOut(db: TeamDb, kv: SyncKvStorage, input: FanOutInput): FanOutResult {
  storeEvent(db, input.event);
  const created: number[] = [];
  for (const endpointId of new Set(input.endpointIds)) {
    const id = newDelivery(db, kv, input.event, endpointId, input.nowMs, input.idFloor);
    if (id !== null) created.push(id);
  }
  const pending = db
    .select({ id: deliveries.id, endpointId: deliveries.endpointId })
    .from(deliveries)
    .where(and(eq(deliveries.eventId, input.event.id), eq(deliveries.status, "pending"), eq(deliveries.attempts, 0)))
    .orderBy(deliveries.id)
    .all();
  return { created, pending };
}

/** A webhook.test event and its one delivery, to the tested endpoint alone (docs/events.md). */
export function testDelivery(db: TeamDb, kv: SyncKvStorage, input: TestDeliveryInput): DeliveryRecord {
  storeEvent(db, input.event);
  newDelivery(db, kv, input.event, input.endpointId, input.nowMs, input.idFloor);
  const row = db
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.eventId, input.event.id), eq(deliveries.endpointId, input.endpointId)))
    .get();
  if (!row) throw new Error("test delivery was not recorded");
  return deliveryRecord(row);
}

/** A page of one endpoint's deliveries, newest first, and the total of the filter. */
export function listDeliveries(db: TeamDb, q: DeliveryListQuery): { rows: DeliveryRecord[]; total: number } {
  const conds: SQL[] = [eq(deliveries.endpointId, q.endpointId)];
  if (q.status) conds.push(eq(deliveries.status, q.status));
  if (q.eventType) conds.push(eq(deliveries.eventType, q.eventType));
  const where = and(...conds);
  const rows = db.select().from(deliveries).where(where).orderBy(desc(deliveries.createdAt), desc(deliveries.id)).limit(q.limit).offset(q.offset).all();
  const total = db.select({ n: count() }).from(deliveries).where(where).get()?.n ?? 0;
  return { rows: rows.map(deliveryRecord), total };
}

/** One delivery of the endpoint with its event's outbound body, or null. */
export function getDelivery(db: TeamDb, endpointId: number, deliveryId: number): { row: DeliveryRecord; payload: string | null } | null {
  const found = db
    .select({ d: deliveries, e: events })
    .from(deliveries)
    .leftJoin(events, eq(events.id, deliveries.eventId))
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.endpointId, endpointId)))
    .get();
  if (!found) return null;
  return { row: deliveryRecord(found.d), payload: found.e?.payload ?? null };
}

/** The endpoint is gone: its deliveries and its streak go with it (its events stay until the purge). */
export function deleteEndpoint(db: TeamDb, endpointId: number): number {
  const gone = db.delete(deliveries).where(eq(deliveries.endpointId, endpointId)).returning({ id: deliveries.id }).all().length;
  db.delete(endpointStreaks).where(eq(endpointStreaks.endpointId, endpointId)).run();
  return gone;
}
