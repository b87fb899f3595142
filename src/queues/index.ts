// Queue entry point: routes each batch to its consumer by queue name. An unknown queue throws.
import type { Env } from "../env";

export async function handleQueue(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  switch (batch.queue) {
    default:
      throw new Error(`no consumer for queue ${batch.queue}`);
  }
}
