// One attempt's bookkeeping in the team's log (docs/decisions.md D11, D95, D143): the claim that decides
// whether a message sends (disabled endpoint, not due, leased by another consumer), the outcome with the
// endpoint's streak in the same transaction, and the reset of a redelivery.
import { and, eq } from "drizzle-orm";
import { deliveryRecord, eventRecord, type TeamDb } from "./db";
import { deliveries, events } from "./schema";
import { changeStreak, readStreak } from "./streaks";
import type { ClaimInput, ClaimResult, DeliveryRecord, OutcomeInput, OutcomeResult } from "./types";

function load(db: TeamDb, deliveryId: number, endpointId: number): DeliveryRecord | null {
  const row = db
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.endpointId, endpointId)))
    .get();
  return row ? deliveryRecord(row) : null;
}

function update(db: TeamDb, id: number, set: Partial<typeof deliveries.$inferInsert>): DeliveryRecord {
  const [row] = db.update(deliveries).set(set).where(eq(deliveries.id, id)).returning().all();
  if (!row) throw new Error(`delivery ${id} vanished inside its transaction`);
  return deliveryRecord(row);
}

/** Decides and, when the delivery is due and free, claims it for `leaseMs`. */
export function claim(db: TeamDb, input: ClaimInput): ClaimResult {
  const d = load(db, input.deliveryId, input.endpointId);
  if (!d) return { kind: "missing" };
  if (d.status !== "pending") return { kind: "settled", row: d, streak: readStreak(db, d.endpointId) };
  const now = input.nowMs;
  if (!input.endpointEnabled && !input.manual) {
    // Not sent while disabled; marked failed so the sweep stops picking it up (redeliver can resend it).
    return { kind: "skipped", row: update(db, d.id, { status: "failed", error: "endpoint disabled; not sent", nextRetryAt: null, updatedAt: now }) };
  }
  if (d.nextRetryAt !== null && d.nextRetryAt > now + input.earlyToleranceMs) return { kind: "early", row: d };
  if (d.leasedUntil !== null && d.leasedUntil > now) return { kind: "busy", row: d };
  const row = update(db, d.id, { nextRetryAt: now + input.leaseMs, leasedUntil: now + input.leaseMs, updatedAt: now });
  const ev = db.select().from(events).where(eq(events.id, d.eventId)).get();
  if (!ev) throw new Error(`event ${d.eventId} of delivery ${d.id} is missing from the team log`);
  return { kind: "claimed", row, event: eventRecord(ev) };
}

/** Records an attempt on a pending delivery and moves the endpoint's streak in the same transaction. */
export function recordOutcome(db: TeamDb, input: OutcomeInput): OutcomeResult {
  const d = db.select().from(deliveries).where(eq(deliveries.id, input.deliveryId)).get();
  if (!d) return { row: null, streak: null };
  if (d.status !== "pending") return { row: deliveryRecord(d), streak: null };
  const row = update(db, d.id, {
    status: input.status,
    attempts: input.attempts,
    responseStatus: input.responseStatus,
    responseBody: input.responseBody,
    responseHeaders: input.responseHeaders === null ? null : JSON.stringify(input.responseHeaders),
    error: input.error,
    durationMs: input.durationMs,
    nextRetryAt: input.nextRetryAt,
    deliveredAt: input.status === "delivered" ? input.nowMs : d.deliveredAt,
    leasedUntil: null,
    updatedAt: input.nowMs,
  });
  const streak = input.streak === null ? null : changeStreak(db, d.endpointId, input.streak, input.seed, input.nowMs);
  return { row, streak };
}

/**
 * Redeliver: back to pending and due now, unless an attempt is in flight (its lease is live), which
 * answers "busy". Null when the endpoint has no such delivery.
 */
export function resetForRedeliver(db: TeamDb, endpointId: number, deliveryId: number, nowMs: number): { row: DeliveryRecord; busy: boolean } | null {
  const d = load(db, deliveryId, endpointId);
  if (!d) return null;
  if (d.leasedUntil !== null && d.leasedUntil > nowMs) return { row: d, busy: true };
  return { row: update(db, d.id, { status: "pending", nextRetryAt: null, updatedAt: nowMs }), busy: false };
}
