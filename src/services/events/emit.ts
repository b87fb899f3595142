// The event outbox (docs/decisions.md D9): an event row is built here and written in the same D1 batch
// as the change that caused it; publishEvents() nudges the deliveries queue after the commit.
import { randomId } from "../../lib/crypto";
import { events } from "../../db/schema";
import type { Db } from "../../db/client";
import type { Services } from "../../services";

export const API_VERSION = "2026-10-10";

export const EVENT_TYPES = [
  "domain.created",
  "domain.verified",
  "domain.unverified",
  "domain.deleted",
  "check.completed",
  "posture.changed",
  "dkim.selector.added",
  "dkim.selector.removed",
  "dkim.key.rotated",
  "dkim.key.revoked",
  "dkim.record.changed",
  "dkim.key.stale",
  "dns.record.changed",
  "blacklist.listed",
  "blacklist.delisted",
  "alert.created",
  "alert.resolved",
  "dmarc.report.received",
  "tlsrpt.report.received",
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventDraft {
  type: EventType;
  teamId: number;
  /** Domain events carry data.domain {id, name} (docs/decisions.md D10). */
  domain?: { id: number; name: string } | null;
  data?: Record<string, unknown>;
}

export interface OutboundEvent {
  id: string;
  type: EventType;
  api_version: typeof API_VERSION;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The outbound body of a new event, with a fresh id. */
export function eventBody(draft: EventDraft, now: Date): OutboundEvent {
  const id = randomId("evt", 24);
  const data = draft.domain ? { domain: { id: draft.domain.id, name: draft.domain.name }, ...draft.data } : { ...draft.data };
  return { id, type: draft.type, api_version: API_VERSION, timestamp: now.toISOString(), data };
}

/** Builds the outbound body and its insert statement; add `statement` to the caller's db.batch. */
export function buildEvent(db: Db, draft: EventDraft, now: Date) {
  const payload = eventBody(draft, now);
  const { id } = payload;
  const statement = db.insert(events).values({
    id,
    teamId: draft.teamId,
    domainId: draft.domain?.id ?? null,
    type: draft.type,
    payload,
    createdAt: now,
  });
  return { id, payload, statement };
}

/**
 * After the batch has committed: one fan-out nudge per event. A lost nudge is recovered by the
 * outbox sweep. Callers use commit() (src/services/commit.ts), which calls this after the batch.
 */
export async function publishEvents(svc: Services, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  try {
    await svc.enqueue.deliveries(ids.map((id) => ({ kind: "fanout", event_id: id })));
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", msg: "fan-out enqueue failed; the outbox sweep will retry", error: String(error) }));
  }
}
