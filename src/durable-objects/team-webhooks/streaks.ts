// An endpoint's consecutive-failure streak (docs/decisions.md D11, D143), changed only inside the
// transaction that records an outcome (or resets it on re-enable). Each change takes the next `seq`, and
// the caller writes the absolute values to D1 where only a higher seq wins: no replay double counts.
import { eq } from "drizzle-orm";
import type { TeamDb } from "./db";
import { endpointStreaks } from "./schema";
import type { StreakChange, StreakSeed, StreakState } from "./types";

/** Spec: the 20th failed delivery in a row disables the endpoint (410 Gone at once). */
export const DISABLE_AFTER_FAILURES = 20;

export function readStreak(db: TeamDb, endpointId: number): StreakState | null {
  const row = db.select().from(endpointStreaks).where(eq(endpointStreaks.endpointId, endpointId)).get();
  return row ? { ...row, disable: row.disable ?? null } : null;
}

/** Applies one change; an endpoint met for the first time starts from D1's values (`seed`). */
export function changeStreak(db: TeamDb, endpointId: number, change: Exclude<StreakChange, null> | "reset", seed: StreakSeed, nowMs: number): StreakState {
  const current = readStreak(db, endpointId) ?? { endpointId, ...seed, disable: null, seq: 0 };
  let next: StreakState;
  if (change === "success") next = { ...current, failureCount: 0, lastSuccessAt: nowMs, disable: null };
  else if (change === "reset") next = { ...current, failureCount: 0, disable: null };
  else {
    const failureCount = current.failureCount + 1;
    const disable = change === "gone" ? "gone" : failureCount >= DISABLE_AFTER_FAILURES ? "consecutive_failures" : null;
    next = { ...current, failureCount, lastFailureAt: nowMs, disable };
  }
  next.seq = current.seq + 1;
  const values = {
    failureCount: next.failureCount,
    lastSuccessAt: next.lastSuccessAt,
    lastFailureAt: next.lastFailureAt,
    disable: next.disable,
    seq: next.seq,
  };
  db.insert(endpointStreaks)
    .values({ endpointId, ...values })
    .onConflictDoUpdate({ target: endpointStreaks.endpointId, set: values })
    .run();
  return next;
}
