// Consumer of the deliveries queue (fan-out and deliver messages) and of its dead-letter queue.
// Does I/O through the webhook services. Attempt counts live in the team's webhook log, so messages are
// acked once handled; only an unexpected error lets the queue retry the message (then the DLQ).
import type { Env } from "../env";
import { createServices, type Services } from "../services";
import { type BatchClaim, claimBatch, deliverOne, finishDelivery } from "../services/webhooks/deliver";
import { BATCH_CONCURRENCY, DEFER_SECONDS, mapBounded, planDeliveryBatch } from "../services/webhooks/fairness";
import { sendDeliver } from "../services/webhooks/outcome";
import { fanOutEvent } from "../services/webhooks/fanout";
import { routeAlertEvent } from "../services/notify/route";
import { sendNotification } from "../services/notify/send";
import { type DeliveryMessage, IncomingDeliveryMessage } from "../services/messages";

type Deliver = Extract<DeliveryMessage, { kind: "deliver" }>;

export async function handleDeliveryMessage(svc: Services, body: unknown): Promise<void> {
  const parsed = IncomingDeliveryMessage.safeParse(body);
  if (!parsed.success) {
    console.error(JSON.stringify({ level: "error", msg: "malformed deliveries message dropped", issues: parsed.error.issues.length }));
    return;
  }
  const m = parsed.data;
  if (m.kind === "fanout") await fanOutEvent(svc, m.event_id, routeAlertEvent);
  else if (m.kind === "notify") await sendNotification(svc, { teamId: m.team_id, messageId: m.message_id });
  else if ("team_id" in m) await deliverOne(svc, { teamId: m.team_id, endpointId: m.endpoint_id, deliveryId: m.delivery_id });
  else {
    // Sent by the release before the team logs (docs/decisions.md D145): its delivery is still in D1's
    // legacy_deliveries; the mover takes it to the team's log, whose alarm sends it.
    console.warn(
      JSON.stringify({ level: "warn", msg: "legacy deliver message acked; the webhook log mover and its team's alarm resend it", delivery_id: m.delivery_id }),
    );
  }
}

/**
 * Fan-out (and legacy or malformed) messages run first. Deliver messages are planned for fairness by the
 * endpoint each names: at most PER_ENDPOINT attempts per endpoint now, with BATCH_CONCURRENCY in flight;
 * the rest are sent again with a short delay and acked (the attempt count lives in the team's log, not in
 * the queue's retry counter). The ones attempted now are claimed per team in one call to its log.
 */
export async function consumeDeliveries(batch: MessageBatch<unknown>, svc: Services): Promise<void> {
  const settle = async (message: Message<unknown>, work: () => Promise<unknown>) => {
    try {
      await work();
      message.ack();
    } catch (error) {
      console.error(JSON.stringify({ level: "error", msg: "deliveries message failed; queue will retry", id: message.id, error: String(error) }));
      message.retry({ delaySeconds: 30 });
    }
  };
  const delivers: Array<Deliver & { message: Message<unknown> }> = [];
  const others: Message<unknown>[] = [];
  for (const message of batch.messages) {
    const parsed = IncomingDeliveryMessage.safeParse(message.body);
    if (parsed.success && parsed.data.kind === "deliver" && "team_id" in parsed.data) delivers.push({ ...parsed.data, message });
    else others.push(message);
  }
  await mapBounded(others, BATCH_CONCURRENCY, (m) => settle(m, () => handleDeliveryMessage(svc, m.body)));
  const plan = planDeliveryBatch(delivers);
  for (const d of plan.later) {
    try {
      await sendDeliver(svc, { id: d.endpoint_id, teamId: d.team_id }, d.delivery_id, DEFER_SECONDS);
      d.message.ack();
    } catch {
      d.message.retry({ delaySeconds: DEFER_SECONDS });
    }
  }
  // The deliveries attempted now are claimed per team, in one call to its log; a failed claim retries them.
  const byTeam = new Map<number, typeof plan.now>();
  for (const d of plan.now) byTeam.set(d.team_id, [...(byTeam.get(d.team_id) ?? []), d]);
  const tasks: Array<{ message: Message<unknown>; claim: BatchClaim }> = [];
  await Promise.all(
    [...byTeam].map(async ([teamId, list]) => {
      try {
        const claims = await claimBatch(
          svc,
          teamId,
          list.map((d) => ({ teamId, endpointId: d.endpoint_id, deliveryId: d.delivery_id })),
        );
        claims.forEach((claim, i) => {
          const message = list[i]?.message;
          if (message) tasks.push({ message, claim });
        });
      } catch (error) {
        for (const d of list) await settle(d.message, () => Promise.reject(error));
      }
    }),
  );
  await mapBounded(tasks, BATCH_CONCURRENCY, ({ message, claim }) =>
    settle(message, async () => {
      if (claim.e !== null && claim.decided !== null) await finishDelivery(svc, claim.e, claim.decided, claim.now);
    }),
  );
}

export async function handleDeliveriesQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await consumeDeliveries(batch, createServices(env));
}

/** Dead letters are logged and acked: the outbox sweep and the team logs' retry sweeps re-drive their work. */
export async function handleDeliveriesDlq(batch: MessageBatch<unknown>): Promise<void> {
  for (const message of batch.messages) {
    console.error(JSON.stringify({ level: "error", msg: "deliveries message dead-lettered", id: message.id, attempts: message.attempts, body: message.body }));
    message.ack();
  }
}
