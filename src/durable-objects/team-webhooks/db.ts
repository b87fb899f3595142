// The object's drizzle handle over its own SQLite storage (durable-sqlite driver), the row mappers of
// its RPC shapes, and the delivery id counter kept in its synchronous KV (docs/decisions.md D142).
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type * as schema from "./schema";
import type { DeliveryRecord, EventRecord } from "./types";

export type TeamDb = DrizzleSqliteDODatabase<typeof schema>;

type DeliveryRow = typeof schema.deliveries.$inferSelect;
type EventRow = typeof schema.events.$inferSelect;

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function deliveryRecord(row: DeliveryRow): DeliveryRecord {
  const headers = parseJson(row.responseHeaders);
  return { ...row, responseHeaders: headers !== null && typeof headers === "object" ? (headers as Record<string, string>) : null };
}

export const eventRecord = (row: EventRow): EventRecord => ({ ...row });

/**
 * The next delivery id: never below `floor` + 1 (the highest id still in D1's legacy_deliveries, so a
 * delivery moved later cannot collide) and never reused, since the counter outlives every row.
 */
export function nextDeliveryId(kv: SyncKvStorage, floor: number): number {
  const id = Math.max(kv.get<number>("next_delivery_id") ?? 1, floor + 1);
  kv.put("next_delivery_id", id + 1);
  return id;
}

/** Moves the counter past ids that arrive with their own (moved legacy deliveries). */
export function reserveDeliveryIds(kv: SyncKvStorage, highest: number): void {
  if ((kv.get<number>("next_delivery_id") ?? 1) <= highest) kv.put("next_delivery_id", highest + 1);
}

/** The team this object belongs to, remembered from the first write (its alarm's messages name it). */
export function rememberTeam(kv: SyncKvStorage, teamId: number): void {
  if (kv.get<number>("team_id") !== teamId) kv.put("team_id", teamId);
}
