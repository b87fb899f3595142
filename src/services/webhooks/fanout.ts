// Fan-out of one outbox event (docs/decisions.md D9): one delivery row per matching enabled endpoint,
// then one deliver message per new row. Idempotent. Does I/O (D1, queue).
import { and, eq } from "drizzle-orm";
import { deliveries, events, webhookEndpoints } from "../../db/schema";
import type { Services } from "../../services";
import { commitAll } from "../commit";
import type { EndpointRow } from "./views";

type EventRow = typeof events.$inferSelect;

/**
 * Spec §6 rule 6: an endpoint takes an event when it subscribes to its type (or "*") and, when it
 * lists domain_ids, the event's domain is among them. An event without a domain (a team-wide one)
 * reaches only endpoints without a domain restriction. webhook.test goes to the tested endpoint
 * alone (send-test.ts writes that delivery itself), so fan-out never matches it.
 */
export function matches(endpoint: Pick<EndpointRow, "enabled" | "events" | "domainIds">, event: Pick<EventRow, "type" | "domainId">): boolean {
  if (!endpoint.enabled || event.type === "webhook.test") return false;
  if (!endpoint.events.includes("*") && !endpoint.events.includes(event.type)) return false;
  if (endpoint.domainIds === null || endpoint.domainIds === undefined) return true;
  return event.domainId !== null && endpoint.domainIds.includes(event.domainId);
}

export interface FanOutResult {
  created: number[];
  skipped: "missing" | "already_fanned_out" | null;
}

export async function fanOutEvent(svc: Services, eventId: string): Promise<FanOutResult> {
  const event = await svc.db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) return { created: [], skipped: "missing" };
  if (event.fannedOutAt !== null) return { created: [], skipped: "already_fanned_out" };
  const now = svc.clock.now();
  const endpoints = await svc.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.teamId, event.teamId), eq(webhookEndpoints.enabled, true)));
  const targets = endpoints.filter((e) => matches(e, event));
  const mark = svc.db.update(events).set({ fannedOutAt: now }).where(eq(events.id, event.id));
  if (targets.length === 0) {
    await mark;
    return { created: [], skipped: null };
  }
  // Unique (event_id, endpoint_id): a repeated fan-out inserts nothing and so enqueues nothing.
  // Ten rows per statement keeps each under D1's 100 bound parameters.
  const rows = targets.map((e) => ({
    endpointId: e.id,
    eventId: event.id,
    teamId: event.teamId,
    eventType: event.type,
    status: "pending" as const,
    attempts: 0,
    createdAt: now,
    updatedAt: now,
  }));
  const inserts = [];
  for (let i = 0; i < rows.length; i += 10) {
    inserts.push(
      svc.db
        .insert(deliveries)
        .values(rows.slice(i, i + 10))
        .onConflictDoNothing({ target: [deliveries.eventId, deliveries.endpointId] })
        .returning({ id: deliveries.id }),
    );
  }
  const results = await commitAll(svc, [...inserts, mark]);
  const inserted = results.slice(0, inserts.length).flat() as { id: number }[];
  const created = inserted.map((r) => r.id);
  await enqueueDeliveries(svc, created);
  return { created, skipped: null };
}

/** One deliver message per row, in batches of 100; a lost send is recovered by the retry sweep. */
export async function enqueueDeliveries(svc: Services, ids: number[], delaySeconds = 0): Promise<void> {
  if (ids.length === 0) return;
  try {
    await svc.enqueue.deliveries(
      ids.map((id) => ({ kind: "deliver", delivery_id: id })),
      { delaySeconds },
    );
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", msg: "deliver enqueue failed; the retry sweep will resend", error: String(error) }));
  }
}
