// Records one attempt's outcome (docs/decisions.md D11, D143): the delivery and the endpoint's failure
// streak in one transaction of the team's webhook log, then the streak's absolute values into D1's
// webhook_endpoints where only a higher seq writes (so replays and late writes never double count), then
// the follow-up (retry message, owner notice). Does I/O (the team object, D1, queue).
import { and, eq, lt, sql } from "drizzle-orm";
import { nextRetryDelaySeconds, queueHops, type Classification } from "../../core/webhooks";
import type { StreakState } from "../../durable-objects/team-webhooks/types";
import { DISABLE_AFTER_FAILURES } from "../../durable-objects/team-webhooks/streaks";
import { webhookEndpoints } from "../../db/schema";
import type { Services } from "../../services";
import { auditWhen, urlForAudit } from "../audit-when";
import { commit } from "../commit";
import { systemContext } from "../context";
import { notifyOwner } from "../notifications/notify-owner";
import { enqueueDeliveries } from "./fanout";
import { teamLog } from "./team-log";
import type { DeliveryRow, EndpointRow } from "./views";

export { DISABLE_AFTER_FAILURES };
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

const msOf = (d: Date | null) => (d === null ? null : d.getTime());

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
  const out = await teamLog(svc, { id: e.teamId }).recordOutcome({
    teamId: e.teamId,
    deliveryId: d.id,
    nowMs: now.getTime(),
    status: delivered ? "delivered" : retrying ? "pending" : "failed",
    attempts: rec.attempt,
    responseStatus: rec.status,
    responseBody: rec.body,
    responseHeaders: rec.headers,
    error,
    durationMs: rec.durationMs,
    nextRetryAt: retrying && delay !== null ? now.getTime() + delay * 1000 : null,
    // A retrying attempt does not count: only a delivery's final outcome moves the streak (D11).
    streak: delivered ? "success" : retrying ? null : verdict === "disable" ? "gone" : "failure",
    seed: { failureCount: e.failureCount, lastSuccessAt: msOf(e.lastSuccessAt), lastFailureAt: msOf(e.lastFailureAt) },
  });
  if (retrying) {
    await sendDeliver(svc, e, d.id, queueHops(delay ?? 0, QUEUE_MAX_DELAY_SECONDS).firstHop);
    return out.row ?? d;
  }
  if (out.streak !== null) await writeStreak(svc, e, out.streak);
  return out.row ?? d;
}

/**
 * The streak's absolute values into D1, only over an older seq; disabling with the CASE WHEN enabled = 1
 * rules (410 keeps an earlier reason; the 20th failure in a row disables an enabled endpoint). The read
 * of `enabled` before the write, in the same batch, tells whether this write disabled it: then, and only
 * then, the owner is told.
 */
export async function writeStreak(svc: Services, e: EndpointRow, s: StreakState): Promise<void> {
  const at = s.lastFailureAt ?? svc.clock.now().getTime();
  const disabling = s.disable !== null;
  const where = and(eq(webhookEndpoints.id, e.id), lt(webhookEndpoints.statsSeq, s.seq));
  const update = svc.db
    .update(webhookEndpoints)
    .set({
      failureCount: s.failureCount,
      lastSuccessAt: s.lastSuccessAt === null ? null : new Date(s.lastSuccessAt),
      lastFailureAt: s.lastFailureAt === null ? null : new Date(s.lastFailureAt),
      statsSeq: s.seq,
      ...(disabling
        ? {
            enabled: false,
            disabledAt: sql`CASE WHEN enabled = 1 THEN ${at} ELSE disabled_at END`,
            disabledReason: sql`CASE WHEN enabled = 1 THEN ${s.disable} ELSE disabled_reason END`,
          }
        : {}),
    })
    .where(where)
    .returning({ enabled: webhookEndpoints.enabled, disabledReason: webhookEndpoints.disabledReason });
  const before = svc.db.select({ enabled: webhookEndpoints.enabled }).from(webhookEndpoints).where(where);
  let wasEnabled: boolean;
  let written: { enabled: boolean; disabledReason: string | null } | undefined;
  if (disabling) {
    // The service's entry when this write disables an enabled endpoint, guarded like the CASE above: a
    // replayed or older outcome, or an endpoint already disabled, records nothing.
    const reason = s.disable === "consecutive_failures" ? `${DISABLE_AFTER_FAILURES} failed deliveries in a row` : "the receiver answered 410 Gone";
    const entry = auditWhen(
      svc,
      systemContext(e.teamId),
      {
        verb: "webhook_endpoint.disable",
        target: { type: "webhook_endpoint", id: e.id },
        summary: `endpoint ${urlForAudit(e.url)} disabled by the service: ${reason}`,
      },
      { when: sql`EXISTS (SELECT 1 FROM webhook_endpoints WHERE ${where} AND enabled = 1)` },
    );
    const [b, , a] = await commit(svc, [before, entry, update]);
    wasEnabled = b[0]?.enabled === true;
    written = a[0];
  } else {
    const [b, a] = await svc.db.batch([before, update]);
    wasEnabled = b[0]?.enabled === true;
    written = a[0];
  }
  const justDisabled = wasEnabled && written?.enabled === false && written.disabledReason === "consecutive_failures";
  if (justDisabled) await noticeDisabled(svc, e);
}

/** Enqueues a delivery attempt; a lost send is recovered by the team log's retry sweep. */
export const sendDeliver = (svc: Services, e: Pick<EndpointRow, "id" | "teamId">, deliveryId: number, delaySeconds: number): Promise<void> =>
  enqueueDeliveries(svc, e.teamId, [{ id: deliveryId, endpointId: e.id }], delaySeconds);

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
