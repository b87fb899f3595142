// Per-team rate limiter and monthly quota (one object per team). Does I/O: its own SQLite storage.
// hit() never awaits between reading and writing the counters, and a Durable Object runs one
// event at a time, so a burst of parallel requests can never admit more than the limit.
import { DurableObject } from "cloudflare:workers";

export interface RateLimits {
  perMinute: number;
  perMonth: number;
}

export interface RateDecision {
  allowed: boolean;
  reason: "rate_limited" | "quota_exceeded" | null;
  limit: number;
  remaining: number;
  resetSeconds: number;
  quotaLimit: number;
  quotaUsed: number;
  retryAfterSeconds: number;
}

interface MinuteWindow {
  start: number;
  count: number;
}

const monthKey = (now: Date) => `quota:${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`;

function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.ceil((next - now.getTime()) / 1000);
}

export class RateLimiter extends DurableObject {
  /** Counts one request against the minute window and the month, unless either is exhausted. */
  hit(limits: RateLimits, nowMs: number = Date.now()): RateDecision {
    const kv = this.ctx.storage.kv;
    const now = new Date(nowMs);
    const windowStart = nowMs - (nowMs % 60_000);
    const stored = kv.get<MinuteWindow>("minute");
    const minute = stored && stored.start === windowStart ? stored : { start: windowStart, count: 0 };
    const qKey = monthKey(now);
    const quotaUsed = kv.get<number>(qKey) ?? 0;
    const resetSeconds = Math.max(1, Math.ceil((windowStart + 60_000 - nowMs) / 1000));
    const base = { limit: limits.perMinute, resetSeconds, quotaLimit: limits.perMonth };

    if (quotaUsed >= limits.perMonth) {
      const retry = secondsToNextMonth(now);
      return {
        ...base,
        allowed: false,
        reason: "quota_exceeded",
        remaining: Math.max(0, limits.perMinute - minute.count),
        quotaUsed,
        retryAfterSeconds: retry,
      };
    }
    if (minute.count >= limits.perMinute) {
      return { ...base, allowed: false, reason: "rate_limited", remaining: 0, quotaUsed, retryAfterSeconds: resetSeconds };
    }
    minute.count += 1;
    kv.put("minute", minute);
    if (quotaUsed === 0) this.forgetOldMonths(qKey);
    kv.put(qKey, quotaUsed + 1);
    return {
      ...base,
      allowed: true,
      reason: null,
      remaining: limits.perMinute - minute.count,
      quotaUsed: quotaUsed + 1,
      retryAfterSeconds: 0,
    };
  }

  /**
   * Counts one failed authentication from the client this object is named after ("auth:<ip>"): past
   * `perMinute` failures within 60 s of the first, the client is refused until that window ends.
   */
  failure(perMinute: number, nowMs: number = Date.now()): { blocked: boolean; retryAfterSeconds: number } {
    const kv = this.ctx.storage.kv;
    // The window opens with the first failure (not on the clock's minute), so a burst is never split
    // across two windows: more than `perMinute` failures within 60 s always block.
    const stored = kv.get<MinuteWindow>("failures");
    const window = stored && nowMs - stored.start < 60_000 ? stored : { start: nowMs, count: 0 };
    window.count += 1;
    kv.put("failures", window);
    return { blocked: window.count > perMinute, retryAfterSeconds: Math.max(1, Math.ceil((window.start + 60_000 - nowMs) / 1000)) };
  }

  /** Usage this month without counting a request (admin and account views). */
  usage(nowMs: number = Date.now()): number {
    return this.ctx.storage.kv.get<number>(monthKey(new Date(nowMs))) ?? 0;
  }

  private forgetOldMonths(current: string): void {
    for (const [key] of this.ctx.storage.kv.list({ prefix: "quota:" })) {
      if (key !== current) this.ctx.storage.kv.delete(key);
    }
  }
}
