// Fan-out of one outbox event (docs/decisions.md D9, D141): the event goes into its team's webhook log
// with one pending delivery per matching enabled endpoint, one deliver message per delivery still never
// attempted, and only then is the D1 outbox row deleted. Every step is safe to repeat, so a crash
// anywhere is healed by the next run (the queue's retry or the outbox sweep). Does I/O (D1, the team
// object, queue).
import { and, eq } from "drizzle-orm";
import { events, webhookEndpoints } from "../../db/schema";
import type { Services } from "../../services";
import { deliveryIdFloor, teamLog } from "./team-log";
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
  /** Deliveries created by this run. */
  created: number[];
  /** Deliveries enqueued by this run: every one of the event's deliveries still never attempted. */
  enqueued: number[];
  skipped: "missing" | "already_fanned_out" | null;
}

/** More work an event's fan-out does before its outbox row goes (the queue consumer routes alert events to notification channels). */
export type AlsoOnEvent = (svc: Services, event: EventRow) => Promise<unknown>;

export async function fanOutEvent(svc: Services, eventId: string, also?: AlsoOnEvent): Promise<FanOutResult> {
  const event = await svc.db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) return { created: [], enqueued: [], skipped: "missing" };
  // Fanned out by the release before the team logs: its deliveries are in legacy_deliveries (D145).
  if (event.fannedOutAt !== null) return { created: [], enqueued: [], skipped: "already_fanned_out" };
  const endpoints = await svc.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.teamId, event.teamId), eq(webhookEndpoints.enabled, true)));
  const targets = endpoints.filter((e) => matches(e, event));
  const out = await teamLog(svc, { id: event.teamId }).fanOut({
    teamId: event.teamId,
    event: { id: event.id, domainId: event.domainId, type: event.type, payload: JSON.stringify(event.payload), createdAt: event.createdAt.getTime() },
    endpointIds: targets.map((e) => e.id),
    nowMs: svc.clock.now().getTime(),
    idFloor: targets.length === 0 ? 0 : await deliveryIdFloor(svc),
  });
  await enqueueDeliveries(svc, event.teamId, out.pending);
  // Alert events also reach people through the team's notification channels (docs/decisions.md D176);
  // like the steps above, that work is safe to repeat, so the outbox row goes only after it.
  if (also) await also(svc, event);
  await svc.db.delete(events).where(eq(events.id, event.id));
  return { created: out.created, enqueued: out.pending.map((d) => d.id), skipped: null };
}

/** One deliver message per delivery, in batches of 100; a lost send is recovered by the object's alarm (D144). */
export async function enqueueDeliveries(
  svc: Services,
  teamId: number,
  list: ReadonlyArray<{ id: number; endpointId: number }>,
  delaySeconds = 0,
): Promise<void> {
  if (list.length === 0) return;
  try {
    await svc.enqueue.deliveries(
      list.map((d) => ({ kind: "deliver", team_id: teamId, endpoint_id: d.endpointId, delivery_id: d.id })),
      { delaySeconds },
    );
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", msg: "deliver enqueue failed; the team log's retry sweep will resend", error: String(error) }));
  }
}
