// The producer port: the only way services put work on a queue. The bindings stay behind it, so
// services never import the queue layer and tests can swap it. Does I/O (Queues).
import type { Env } from "../env";
import type { CheckMessage, DeliveryMessage } from "./messages";

/** sendBatch takes at most 100 messages per call. */
export const SEND_BATCH_MAX = 100;

export interface QueueProducer {
  /** Check requests (emailauth-checks). Throws when the queue refuses: the caller decides. */
  checks(messages: CheckMessage[]): Promise<void>;
  /** Fan-out and deliver messages (emailauth-deliveries), optionally delayed. Throws on failure. */
  deliveries(messages: DeliveryMessage[], options?: { delaySeconds?: number }): Promise<void>;
}

async function sendAll<T>(queue: Queue, bodies: T[], delaySeconds: number): Promise<void> {
  const options = delaySeconds > 0 ? { delaySeconds } : undefined;
  for (let i = 0; i < bodies.length; i += SEND_BATCH_MAX) {
    await queue.sendBatch(bodies.slice(i, i + SEND_BATCH_MAX).map((body) => ({ body, ...options })));
  }
}

export function queueProducer(env: Pick<Env, "CHECKS_QUEUE" | "DELIVERIES_QUEUE">): QueueProducer {
  return {
    checks: (messages) => sendAll(env.CHECKS_QUEUE, messages, 0),
    deliveries: (messages, options) => sendAll(env.DELIVERIES_QUEUE, messages, options?.delaySeconds ?? 0),
  };
}
