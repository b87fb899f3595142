// Queue entry point: routes each batch to its consumer by queue name. An unknown queue throws.
import type { Env } from "../env";
import { createServices } from "../services";
import { consumeChecks, consumeChecksDlq } from "./checks";
import { handleDeliveriesDlq, handleDeliveriesQueue } from "./deliveries";

export async function handleQueue(batch: MessageBatch<unknown>, env: Env, _ctx: ExecutionContext): Promise<void> {
  switch (batch.queue) {
    case "emailauth-checks":
      return consumeChecks(batch, createServices(env));
    case "emailauth-checks-dlq":
      return consumeChecksDlq(batch);
    case "emailauth-deliveries":
      return handleDeliveriesQueue(batch, env);
    case "emailauth-deliveries-dlq":
      return handleDeliveriesDlq(batch);
    default:
      throw new Error(`no consumer for queue ${batch.queue}`);
  }
}
