// Consumer of the deliveries queue (fan-out and deliver messages) and of its dead-letter queue.
// Does I/O through the webhook services. Attempt counts live in D1, so messages are acked once
// handled; only an unexpected error lets the queue retry the message (then the DLQ).
import type { Env } from "../env";
import { createServices, type Services } from "../services";
import { deliverOne } from "../services/webhooks/deliver";
import { BATCH_CONCURRENCY, DEFER_SECONDS, mapBounded, planDeliveryBatch } from "../services/webhooks/fairness";
import { sendDeliver } from "../services/webhooks/outcome";
import { fanOutEvent } from "../services/webhooks/fanout";
import { DeliveryMessage } from "../services/messages";

export async function handleDeliveryMessage(svc: Services, body: unknown): Promise<void> {
  const parsed = DeliveryMessage.safeParse(body);
  if (!parsed.success) {
    console.error(JSON.stringify({ level: "error", msg: "malformed deliveries message dropped", issues: parsed.error.issues.length }));
    return;
  }
  if (parsed.data.kind === "fanout") await fanOutEvent(svc, parsed.data.event_id);
  else await deliverOne(svc, parsed.data.delivery_id);
}

/**
 * Fan-out messages run first (D1 only). Deliver messages are planned for fairness: at most
 * PER_ENDPOINT attempts per endpoint now, with BATCH_CONCURRENCY in flight; the rest are sent again
 * with a short delay and acked (the attempt count lives in D1, not in the queue's retry counter).
 */
export async function consumeDeliveries(batch: MessageBatch<unknown>, svc: Services): Promise<void> {
  const run = async (message: Message<unknown>) => {
    try {
      await handleDeliveryMessage(svc, message.body);
      message.ack();
    } catch (error) {
      console.error(JSON.stringify({ level: "error", msg: "deliveries message failed; queue will retry", id: message.id, error: String(error) }));
      message.retry({ delaySeconds: 30 });
    }
  };
  const deliverIds = new Map<Message<unknown>, number>();
  const others: Message<unknown>[] = [];
  for (const message of batch.messages) {
    const parsed = DeliveryMessage.safeParse(message.body);
    if (parsed.success && parsed.data.kind === "deliver") deliverIds.set(message, parsed.data.delivery_id);
    else others.push(message);
  }
  await mapBounded(others, BATCH_CONCURRENCY, run);
  const plan = await planDeliveryBatch(svc, [...deliverIds.values()]);
  const deferred = new Set(plan.later);
  const now: Message<unknown>[] = [];
  for (const [message, id] of deliverIds) {
    if (!deferred.has(id)) {
      now.push(message);
      continue;
    }
    try {
      await sendDeliver(svc, id, DEFER_SECONDS);
      message.ack();
    } catch {
      message.retry({ delaySeconds: DEFER_SECONDS });
    }
  }
  await mapBounded(now, BATCH_CONCURRENCY, run);
}

export async function handleDeliveriesQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await consumeDeliveries(batch, createServices(env));
}

/** Dead letters are logged and acked: the outbox and retry sweeps re-drive their work from D1. */
export async function handleDeliveriesDlq(batch: MessageBatch<unknown>): Promise<void> {
  for (const message of batch.messages) {
    console.error(JSON.stringify({ level: "error", msg: "deliveries message dead-lettered", id: message.id, attempts: message.attempts, body: message.body }));
    message.ack();
  }
}
