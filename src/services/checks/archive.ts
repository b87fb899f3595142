// The check outbox (docs/decisions.md D134-D135): a check and its diffs are written to D1 in the batch
// that records the check (D7), then copied into the domain's object, so D1 keeps only each domain's
// current state. The copy is insert-or-ignore by id, and D1 lets go of the posture JSON and the diffs
// only after the object holds them, so a crash anywhere leaves the check for the next copy: the check's
// own consumer, a view of the domain, or the every-minute sweep (which also moves the history D1 kept
// before checks moved). The slim D1 row stays GUARD_MS more, so that a second run of the same check id
// that began before the first was recorded still fails on the primary key. Does I/O (D1, the object).
import { and, asc, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { CheckRow, DiffRow } from "../../durable-objects/domain-store/checks";
import { checks, diffs } from "../../db/schema";
import type { Services } from "../../services";
import { commitAll } from "../commit";
import { domainStore } from "../domains/domain-store";
import { purgeStampedBefore } from "../purge";

/** Checks one copy moves at most (each with its posture JSON, about 8 KB): one RPC stays far below its size limit. */
export const ARCHIVE_BATCH = 200;
/** Longer than a queue consumer may run (15 minutes of wall time), so no run of a check id outlives its guard row. */
export const GUARD_MS = 20 * 60_000;
/** Wall time the every-minute sweep spends copying (it runs beside the other jobs of the tick). */
export const SWEEP_BUDGET_MS = 20_000;
/** Bound parameters per IN list: D1 allows 100 per statement. */
const IN_LIST = 90;

function* idChunks<T>(ids: readonly T[]): Generator<T[]> {
  for (let i = 0; i < ids.length; i += IN_LIST) yield ids.slice(i, i + IN_LIST);
}

const toObjectCheck = (r: typeof checks.$inferSelect): CheckRow => ({
  id: r.id,
  status: r.status,
  trigger: r.trigger,
  score: r.score,
  grade: r.grade,
  dmarcPolicy: r.dmarcPolicy,
  posture: r.posture === null || r.posture === undefined ? null : JSON.stringify(r.posture),
  staleParts: r.staleParts ?? null,
  queries: r.queries,
  durationMs: r.durationMs,
  error: r.error,
  createdAt: r.createdAt.getTime(),
});

const toObjectDiff = (r: typeof diffs.$inferSelect): DiffRow => ({
  id: r.id,
  checkId: r.checkId,
  category: r.category,
  field: r.field,
  before: r.before,
  after: r.after,
  severity: r.severity,
  createdAt: r.createdAt.getTime(),
});

/**
 * Copies up to `limit` of the domain's checks not yet in its object, newest first (the latest check,
 * which views and the next check read, is never the one left behind), and answers whether more are
 * left. With nothing to copy it costs one read of a partial index.
 */
export async function archiveChecks(svc: Services, domain: { id: number }, limit = ARCHIVE_BATCH): Promise<{ moved: number; more: boolean }> {
  const found = await svc.db
    .select()
    .from(checks)
    .where(and(eq(checks.domainId, domain.id), isNull(checks.archivedAt)))
    .orderBy(desc(checks.createdAt), desc(checks.id))
    .limit(limit + 1);
  if (found.length === 0) return { moved: 0, more: false };
  const batch = found.slice(0, limit);
  const ids = batch.map((c) => c.id);
  const changes = (await Promise.all([...idChunks(ids)].map((part) => svc.db.select().from(diffs).where(inArray(diffs.checkId, part))))).flat();
  await domainStore(svc, domain).storeChecks(batch.map(toObjectCheck), changes.map(toObjectDiff));
  // Only what the object now holds lets go of its posture and diffs; a check recorded meanwhile waits for the next copy.
  const now = svc.clock.now();
  await commitAll(svc, [
    ...[...idChunks(ids)].map((part) => svc.db.delete(diffs).where(inArray(diffs.checkId, part))),
    ...[...idChunks(ids)].map((part) => svc.db.update(checks).set({ posture: null, archivedAt: now }).where(inArray(checks.id, part))),
  ]);
  return { moved: batch.length, more: found.length > limit };
}

/**
 * After a check's batch committed: the copy is not part of the check, so a failure only leaves work for
 * the sweep. A check that recorded no diffs (a quiet check, nearly every one) is copied from the row the
 * check just wrote, with no read of D1: the object's insert and one update. A check with diffs reads
 * them back, since their ids are D1's.
 */
export async function archiveAfterCheck(svc: Services, domain: { id: number }, recorded?: typeof checks.$inferSelect): Promise<void> {
  try {
    if (recorded) {
      await domainStore(svc, domain).storeChecks([toObjectCheck(recorded)], []);
      await svc.db.update(checks).set({ posture: null, archivedAt: svc.clock.now() }).where(eq(checks.id, recorded.id));
    } else {
      await archiveChecks(svc, domain);
    }
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", msg: "check archive failed; the sweep will copy it", domain_id: domain.id, error: String(error) }));
  }
}

export interface SweepOutcome {
  /** Guard rows deleted (copied more than GUARD_MS ago). */
  released: number;
  domains: number;
  checks: number;
  /** True when the budget ran out with checks left to copy. */
  more: boolean;
}

/**
 * The every-minute cron job: deletes the guard rows whose time is up (one statement over a partial
 * index, in bounded batches), then copies every domain's checks left in D1 (a copy that failed after
 * its check, or the history kept in D1 before checks moved), in domain id order, until none is left
 * or the budget is spent. Each next domain is one read of a partial index.
 */
export async function sweepCheckArchive(svc: Services, budgetMs = SWEEP_BUDGET_MS): Promise<SweepOutcome> {
  const started = Date.now();
  const cutoff = svc.clock.now().getTime() - GUARD_MS;
  const released = await purgeStampedBefore(svc, "check guard rows", "checks", "archived_at", cutoff, budgetMs);
  const out: SweepOutcome = { released: released.deleted, domains: 0, checks: 0, more: released.more };
  const nextDomain = (after: number) =>
    svc.db
      .select({ id: checks.domainId })
      .from(checks)
      .where(and(isNull(checks.archivedAt), gt(checks.domainId, after)))
      .orderBy(asc(checks.domainId))
      .limit(1)
      .get();
  let after = 0;
  let counted = 0;
  for (;;) {
    if (Date.now() - started >= budgetMs) {
      out.more = out.more || (await nextDomain(after)) !== undefined;
      break;
    }
    const next = await nextDomain(after);
    if (!next) break;
    if (next.id !== counted) out.domains++;
    counted = next.id;
    try {
      const step = await archiveChecks(svc, next);
      out.checks += step.moved;
      // A domain with more left is visited again; the others are passed.
      if (!step.more) after = next.id;
    } catch (error) {
      // One domain's object failing must not hold back every other domain: the next tick tries it again.
      console.warn(JSON.stringify({ level: "warn", msg: "check archive failed", domain_id: next.id, error: String(error) }));
      after = next.id;
    }
  }
  if (out.checks > 0 || out.more) console.log(JSON.stringify({ level: out.more ? "warn" : "info", msg: "check archive sweep", ...out }));
  return out;
}
