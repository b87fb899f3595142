// Consumer of emailauth-checks (one check per message, ack or retry each on its own) and of its dead-letter queue. Does I/O.
import { CheckMessage } from "../services/messages";
import type { Services } from "../services";
import { runCheck } from "../services/checks/run-check";

const log = (level: "info" | "warn" | "error", msg: string, extra: Record<string, unknown>) =>
  console[level === "info" ? "log" : level](JSON.stringify({ level, msg, ...extra }));

export async function consumeChecks(batch: MessageBatch<unknown>, svc: Services): Promise<void> {
  for (const message of batch.messages) {
    const parsed = CheckMessage.safeParse(message.body);
    if (!parsed.success) {
      // A malformed body will never succeed: acking it keeps it out of the retry loop.
      log("error", "malformed check message dropped", { id: message.id, issues: parsed.error.issues.length });
      message.ack();
      continue;
    }
    try {
      const outcome = await runCheck(svc, parsed.data);
      if (!outcome.recorded) log("info", "check skipped", { check_id: parsed.data.check_id, reason: outcome.reason });
      message.ack();
    } catch (error) {
      log("warn", "check failed; will retry", { check_id: parsed.data.check_id, attempts: message.attempts, error: String(error) });
      message.retry({ delaySeconds: Math.min(300, 30 * message.attempts) });
    }
  }
}

/** Messages that exhausted their retries: logged for operators and acked. The domain's lease expires and the cron tick claims it again. */
export async function consumeChecksDlq(batch: MessageBatch<unknown>): Promise<void> {
  for (const message of batch.messages) {
    log("error", "check message dead-lettered", { id: message.id, attempts: message.attempts, body: message.body });
    message.ack();
  }
}
