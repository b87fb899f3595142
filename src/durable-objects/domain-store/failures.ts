// DMARC failure samples of one domain inside its object (docs/decisions.md D127): insert, a page newest
// received first, a count, and the 30-day purge the alarm runs (D106).
import { and, count, desc, gte, lt } from "drizzle-orm";
import type { StoreDb } from "./db";
import { failures } from "./schema";

/** How long a sample is kept on every plan (D106). */
export const FAILURE_RETENTION_MS = 30 * 86_400_000;

export interface FailureSample {
  id: number;
  reportingOrg: string | null;
  arrivalDate: number | null;
  sourceIp: string | null;
  authFailure: string | null;
  authResults: string | null;
  identityAlignment: string | null;
  dkimDomain: string | null;
  dkimSelector: string | null;
  deliveryResult: string | null;
  receivedAt: number;
}

/** Received-at bounds in epoch ms: from inclusive, to exclusive. */
export interface ReceivedRange {
  fromMs?: number;
  toMs?: number;
}

const inRange = (r: ReceivedRange) =>
  and(r.fromMs === undefined ? undefined : gte(failures.receivedAt, r.fromMs), r.toMs === undefined ? undefined : lt(failures.receivedAt, r.toMs));

export function insertFailure(db: StoreDb, row: Omit<FailureSample, "id">): void {
  db.insert(failures).values(row).run();
}

export function listFailures(db: StoreDb, range: ReceivedRange, limit: number, offset: number): FailureSample[] {
  return db.select().from(failures).where(inRange(range)).orderBy(desc(failures.receivedAt), desc(failures.id)).limit(limit).offset(offset).all();
}

export function countFailures(db: StoreDb, range: ReceivedRange): number {
  return Number(db.select({ n: count() }).from(failures).where(inRange(range)).get()?.n ?? 0);
}

export function purgeFailures(db: StoreDb, nowMs: number): number {
  return db
    .delete(failures)
    .where(lt(failures.receivedAt, nowMs - FAILURE_RETENTION_MS))
    .returning({ id: failures.id })
    .all().length;
}
