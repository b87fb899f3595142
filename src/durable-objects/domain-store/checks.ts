// A domain's check history inside its object (docs/decisions.md D134-D136): checks and their diffs
// copied from the D1 outbox under their own ids (a copy that arrives twice adds nothing), the pages the
// API reads, the posture of one check, and the retention the daily alarm runs.
import { count, desc, eq, getTableColumns, inArray, lt, sql } from "drizzle-orm";
import { HISTORY_DAYS, POSTURE_DAYS } from "../../lib/retention";
import { chunks, num, type StoreDb } from "./db";
import { checks, diffs } from "./schema";

const DAY_MS = 86_400_000;

export type CheckRow = typeof checks.$inferSelect;
export type DiffRow = typeof diffs.$inferSelect;
/** A check without its posture JSON: what the history page lists. */
export type CheckSummary = Omit<CheckRow, "posture">;

const CHECK_COLUMNS = Object.keys(getTableColumns(checks)).length;
const DIFF_COLUMNS = Object.keys(getTableColumns(diffs)).length;

/** Insert-or-ignore by id, checks and diffs in one transaction (the caller's): answers how many checks were new. */
export function storeChecks(db: StoreDb, rows: readonly CheckRow[], changes: readonly DiffRow[]): number {
  let added = 0;
  // Rows per statement: SQLite in a Durable Object binds at most 100 parameters per statement.
  for (const part of chunks(rows, Math.floor(100 / CHECK_COLUMNS))) {
    added += db.insert(checks).values(part).onConflictDoNothing().returning({ id: checks.id }).all().length;
  }
  for (const part of chunks(changes, Math.floor(100 / DIFF_COLUMNS))) db.insert(diffs).values(part).onConflictDoNothing().run();
  return added;
}

/** Which of these check ids the object holds. */
export function heldChecks(db: StoreDb, ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const part of chunks(ids, 90)) {
    out.push(
      ...db
        .select({ id: checks.id })
        .from(checks)
        .where(inArray(checks.id, part))
        .all()
        .map((r) => r.id),
    );
  }
  return out;
}

export function getCheck(db: StoreDb, id: string): CheckRow | null {
  return db.select().from(checks).where(eq(checks.id, id)).get() ?? null;
}

const summary = {
  id: checks.id,
  status: checks.status,
  trigger: checks.trigger,
  score: checks.score,
  grade: checks.grade,
  dmarcPolicy: checks.dmarcPolicy,
  staleParts: checks.staleParts,
  queries: checks.queries,
  durationMs: checks.durationMs,
  error: checks.error,
  createdAt: checks.createdAt,
};

/** Newest first (ties by id, as the D1 history was). */
export function checkPage(db: StoreDb, limit: number, offset: number): { rows: CheckSummary[]; total: number } {
  const rows = db.select(summary).from(checks).orderBy(desc(checks.createdAt), desc(checks.id)).limit(limit).offset(offset).all();
  return { rows, total: num(db.select({ n: count() }).from(checks).get()?.n) };
}

export function diffPage(db: StoreDb, limit: number, offset: number): { rows: DiffRow[]; total: number } {
  const rows = db.select().from(diffs).orderBy(desc(diffs.createdAt), desc(diffs.id)).limit(limit).offset(offset).all();
  return { rows, total: num(db.select({ n: count() }).from(diffs).get()?.n) };
}

export function countChecks(db: StoreDb): number {
  return num(db.select({ n: count() }).from(checks).get()?.n);
}

/**
 * Checks (and their diffs) older than 400 days go; the posture JSON of checks older than 30 days is
 * dropped, except the newest posture the object holds (the domain's latest check, however old).
 */
export function purgeChecks(db: StoreDb, nowMs: number): { checks: number; postures: number } {
  const historyCut = nowMs - HISTORY_DAYS * DAY_MS;
  const postureCut = nowMs - POSTURE_DAYS * DAY_MS;
  db.delete(diffs).where(lt(diffs.createdAt, historyCut)).run();
  const gone = db.delete(checks).where(lt(checks.createdAt, historyCut)).returning({ id: checks.id }).all().length;
  const newest = db.get<{ id: string }>(sql`SELECT id FROM checks WHERE posture IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 1`)?.id ?? null;
  const dropped = db
    .update(checks)
    .set({ posture: null })
    .where(sql`${checks.createdAt} < ${postureCut} AND ${checks.posture} IS NOT NULL AND ${checks.id} IS NOT ${newest}`)
    .returning({ id: checks.id })
    .all().length;
  return { checks: gone, postures: dropped };
}
