// Records one attempt's outcome: the delivery row and the endpoint's counters in one D1 batch
// (docs/decisions.md D11), then the follow-up (retry message, owner notice). Does I/O (D1, queue).
import { and, eq, sql } from "drizzle-orm";
import { nextRetryDelaySeconds, queueHops, type Classification } from "../../core/webhooks";
import { deliveries, webhookEndpoints } from "../../db/schema";
import type { Services } from "../../services";
import { commit } from "../commit";
import { notifyOwner } from "../notifications/notify-owner";
import { enqueueDeliveries } from "./fanout";
import type { DeliveryRow, EndpointRow } from "./views";

/** Spec §6 Delivery rules 4: the 20th failed delivery in a row disables the endpoint. */
export const DISABLE_AFTER_FAILURES = 20;
/** Longest delaySeconds used per message: the older documented queue maximum (12 h), safe on both. */
export const QUEUE_MAX_DELAY_SECONDS = 43_200;

export interface AttemptRecord {
  attempt: number;
  status: number | null;
  error: string | null;
  durationMs: number | null;
  body: string | null;
  headers: Record<string, string> | null;
  retryAfter: string | null;
}

export async function recordOutcome(
  svc: Services,
  d: DeliveryRow,
  e: EndpointRow,
  verdict: Classification,
  rec: AttemptRecord,
  now: Date,
): Promise<DeliveryRow> {
  const delay = verdict === "retry" ? nextRetryDelaySeconds(rec.attempt, rec.retryAfter, Math.random, now) : null;
  const retrying = verdict === "retry" && delay !== null;
  const delivered = verdict === "delivered";
  const spent = verdict === "retry" && delay === null;
  const error = spent ? `${rec.error ?? "failed"}; all ${rec.attempt} attempts spent` : rec.error;
  const deliveryUpdate = svc.db
    .update(deliveries)
    .set({
      status: delivered ? "delivered" : retrying ? "pending" : "failed",
      attempts: rec.attempt,
      responseStatus: rec.status,
      responseBody: rec.body,
      responseHeaders: rec.headers,
      error,
      durationMs: rec.durationMs,
      nextRetryAt: retrying && delay !== null ? new Date(now.getTime() + delay * 1000) : null,
      deliveredAt: delivered ? now : d.deliveredAt,
      leasedUntil: null,
      updatedAt: now,
    })
    .where(and(eq(deliveries.id, d.id), eq(deliveries.status, "pending")))
    .returning();

  let justDisabled = false;
  if (retrying) {
    const [row] = await deliveryUpdate;
    await sendDeliver(svc, d.id, queueHops(delay ?? 0, QUEUE_MAX_DELAY_SECONDS).firstHop);
    return row ?? d;
  }
  const [[row], [endpoint]] = await commit(svc, [deliveryUpdate, endpointUpdate(svc, e.id, verdict, now)]);
  if (!delivered && endpoint && e.enabled && !endpoint.enabled && endpoint.disabledReason === "consecutive_failures") justDisabled = true;
  if (justDisabled) await noticeDisabled(svc, e);
  return row ?? d;
}

/** Endpoint counters: success resets the streak; a failed delivery extends it and may disable. */
function endpointUpdate(svc: Services, id: number, verdict: Classification, now: Date) {
  const where = eq(webhookEndpoints.id, id);
  if (verdict === "delivered") {
    return svc.db.update(webhookEndpoints).set({ failureCount: 0, lastSuccessAt: now }).where(where).returning();
  }
  const t = now.getTime();
  if (verdict === "disable") {
    // 410 Gone: disabled at once (Standard Webhooks); an endpoint already disabled keeps its reason.
    return svc.db
      .update(webhookEndpoints)
      .set({
        failureCount: sql`failure_count + 1`,
        lastFailureAt: now,
        enabled: false,
        disabledAt: sql`CASE WHEN enabled = 1 THEN ${t} ELSE disabled_at END`,
        disabledReason: sql`CASE WHEN enabled = 1 THEN 'gone' ELSE disabled_reason END`,
      })
      .where(where)
      .returning();
  }
  const reaches = sql.raw(`enabled = 1 AND failure_count + 1 >= ${DISABLE_AFTER_FAILURES}`);
  return svc.db
    .update(webhookEndpoints)
    .set({
      failureCount: sql`failure_count + 1`,
      lastFailureAt: now,
      enabled: sql`CASE WHEN ${reaches} THEN 0 ELSE enabled END`,
      disabledAt: sql`CASE WHEN ${reaches} THEN ${t} ELSE disabled_at END`,
      disabledReason: sql`CASE WHEN ${reaches} THEN 'consecutive_failures' ELSE disabled_reason END`,
    })
    .where(where)
    .returning();
}

/** Enqueues a delivery attempt; a lost send is recovered by the retry sweep. */
export const sendDeliver = (svc: Services, deliveryId: number, delaySeconds: number): Promise<void> => enqueueDeliveries(svc, [deliveryId], delaySeconds);

async function noticeDisabled(svc: Services, e: EndpointRow): Promise<void> {
  try {
    await notifyOwner(svc, {
      teamId: e.teamId,
      kind: "webhook_endpoint_disabled",
      subject: `Webhook endpoint ${e.id} was disabled after ${DISABLE_AFTER_FAILURES} failed deliveries`,
      body:
        `Your webhook endpoint ${e.url} (id ${e.id}) failed ${DISABLE_AFTER_FAILURES} deliveries in a row and has been disabled.\n` +
        `Fix the receiver, then re-enable it with PATCH /api/v1/webhooks/${e.id} {"enabled": true}; ` +
        `failed deliveries can be sent again with POST /api/v1/webhooks/${e.id}/deliveries/{delivery}/redeliver.\n`,
    });
  } catch (error) {
    console.error(JSON.stringify({ level: "error", msg: "owner notice failed", endpoint_id: e.id, error: String(error) }));
  }
}
