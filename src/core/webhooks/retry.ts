// The webhook retry schedule, Retry-After handling and splitting long waits into queue hops. No I/O.

/** Waits after attempts 1..7 (docs/decisions.md D14): 1 min, 5 min, 30 min, 2 h, 6 h, 12 h,
 *  24 h; about 44.6 h in all, about two days (docs/decisions.md D11). */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [60, 300, 1800, 7200, 21600, 43200, 86400];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1; // the first attempt + 7 retries
export const JITTER_FRACTION = 0.1; // "each with at most 10% jitter"
/** A receiver's Retry-After may stretch a wait up to this much, no further (one day). */
export const MAX_RETRY_AFTER_SECONDS = 86400;

/**
 * Cloudflare Queues' maximum per-message delay (`delaySeconds` on send/sendBatch/retry): 24 h.
 * Source: developers.cloudflare.com/queues "Batching, Retries and Delays" and Limits pages (older
 * pages said 12 h = 43200; current ones say 24 h), and miniflare's own schema in
 * node_modules/miniflare (QueueMessageDelaySchema: int().min(0).max(86400)). Callers that must be
 * safe against the older limit can pass 43200.
 */
export const MAX_QUEUE_DELAY_SECONDS = 86400;

/**
 * Seconds of a Retry-After value (RFC 9110 §10.2.3: delta-seconds or an HTTP-date, §5.6.7),
 * relative to `now`. Null when absent or unparseable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (v === "") return null;
  if (/^\d+$/.test(v)) return Number(v); // may be huge; callers cap it
  // An HTTP-date always names a weekday and a month in letters; plain Date.parse would also take
  // things like "5" or "2026" and read them as dates.
  if (!/^[A-Za-z]{3}/.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/**
 * The wait before the next attempt, or null when the attempts are spent (8 in total).
 * `attemptsMade` counts attempts already made, the failed one included (1 after the first).
 * Jitter: base × (1 ± 10%), from `random` in [0, 1). A Retry-After (the caller passes it for 429 and
 * 503 only, docs/decisions.md D11) replaces the scheduled wait when it is longer, capped at one day.
 */
export function nextRetryDelaySeconds(attemptsMade: number, retryAfter: string | null | undefined, random: () => number, now: Date): number | null {
  const index = Math.max(1, Math.floor(attemptsMade)) - 1;
  const base = RETRY_SCHEDULE_SECONDS[index];
  if (base === undefined) return null;
  const r = Math.min(1, Math.max(0, random()));
  const scheduled = Math.round(base * (1 + (2 * r - 1) * JITTER_FRACTION));
  const asked = parseRetryAfter(retryAfter, now);
  if (asked === null) return scheduled;
  return Math.max(scheduled, Math.min(asked, MAX_RETRY_AFTER_SECONDS));
}

export interface QueueHops {
  /** delaySeconds for the message sent now. */
  firstHop: number;
  /** Seconds still to wait when that message arrives; the consumer re-enqueues with it (docs/decisions.md D11). */
  remaining: number;
}

/** Splits a wait longer than the queue's maximum delay into a first hop and a remainder. */
export function queueHops(delaySeconds: number, maxQueueDelay = MAX_QUEUE_DELAY_SECONDS): QueueHops {
  const total = Number.isFinite(delaySeconds) ? Math.max(0, Math.ceil(delaySeconds)) : 0;
  const max = Math.max(1, Math.floor(maxQueueDelay));
  const firstHop = Math.min(total, max);
  return { firstHop, remaining: total - firstHop };
}
