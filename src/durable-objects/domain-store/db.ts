// The object's drizzle handle over its own SQLite storage (durable-sqlite driver) and JSON row chunks.
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { sql } from "drizzle-orm";
import type * as schema from "./schema";

export type StoreDb = DrizzleSqliteDODatabase<typeof schema>;

/** Rows per INSERT ... SELECT FROM json_each: one bound JSON string stays far below the statement limits. */
const ROWS_PER_CHUNK = 1000;

export function* chunks<T>(items: readonly T[], size = ROWS_PER_CHUNK): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** The k-th element of a json_each tuple. */
export const col = (k: number) => sql.raw(`json_extract(value, '$[${k}]')`);

export const num = (x: unknown) => Number(x ?? 0);

/** UTC day of epoch ms. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
