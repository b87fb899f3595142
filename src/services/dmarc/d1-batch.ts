// Runs drizzle statements (query builders and db.run(sql) raw statements alike) as one D1 batch. Does I/O (D1).
import type { BatchItem } from "drizzle-orm/batch";

/**
 * drizzle-orm 0.45's D1 batch() fails on a db.run(sql`...`) item that has bound parameters
 * (SQLiteRaw has no prepared `stmt`: "Cannot read properties of undefined (reading 'bind')").
 * So every item is turned into its SQL and parameters here (drizzle maps Dates, booleans and JSON
 * columns to driver values while building them) and sent through the D1 binding's own batch,
 * which is one transaction just the same.
 */
interface Buildable {
  toSQL?: () => { sql: string; params: unknown[] };
  getQuery?: () => { sql: string; params: unknown[] };
}

export function toStatement(d1: D1Database, item: BatchItem<"sqlite">): D1PreparedStatement {
  const b = item as unknown as Buildable;
  const q = b.toSQL ? b.toSQL() : b.getQuery ? b.getQuery() : null;
  if (q === null) throw new Error("not a drizzle statement");
  return d1.prepare(q.sql).bind(...q.params);
}

export async function runBatch(d1: D1Database, items: BatchItem<"sqlite">[]): Promise<D1Result[]> {
  if (items.length === 0) return [];
  return d1.batch(items.map((i) => toStatement(d1, i)));
}
