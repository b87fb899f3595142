// Consumer of the deliveries queue (fan-out and deliver messages) and of its dead-letter queue.
// Does I/O through the webhook services. Attempt counts live in D1, so messages are acked once
// handled; only an unexpected error lets the queue retry the message (then the DLQ).
import type { Env } from "../env";
import { createServices, type Services } from "../services";
import { deliverOne } from "../services/webhooks/deliver";
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

/** Messages of a batch run concurrently: each attempt may wait up to 10 s on its receiver. */
export async function consumeDeliveries(batch: MessageBatch<unknown>, svc: Services): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await handleDeliveryMessage(svc, message.body);
        message.ack();
      } catch (error) {
        console.error(JSON.stringify({ level: "error", msg: "deliveries message failed; queue will retry", id: message.id, error: String(error) }));
        message.retry({ delaySeconds: 30 });
      }
    }),
  );
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
