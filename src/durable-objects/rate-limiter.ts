// Per-team rate limiter and monthly quota (one object per team). Does I/O: its own SQLite storage.
// hit() and lease() never await between reading and writing the counters, and a Durable Object runs
// one event at a time, so a burst of parallel requests can never admit more than the limit. lease()
// hands an isolate a batch of permits, counted at once, that it spends locally (docs/decisions.md D55).
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

/** Permits of an earlier lease that its isolate did not spend, given back once (docs/decisions.md D55). */
export interface UnusedPermits {
  /** The minute window they were granted in (ms since the epoch, a multiple of 60,000). */
  windowStart: number;
  /** The month they were counted in, as "YYYY-MM". */
  month: string;
  count: number;
}

export interface LeaseRequest {
  limits: RateLimits;
  /** Permits wanted; the grant is at most this, and at most what remains of the minute and the month. */
  want: number;
  unused?: UnusedPermits[];
}

export interface LeaseGrant {
  /** Permits counted against the minute and the month for the caller to spend (0: see `decision`). */
  granted: number;
  /** The decision for the first of them (or the refusal); headers for the rest follow from it. */
  decision: RateDecision;
  /** The object's clock when it decided, the end of the minute window and the month's key, so the isolate can place them on its own clock. */
  now: number;
  windowStart: number;
  windowEnd: number;
  month: string;
}

interface MinuteWindow {
  start: number;
  count: number;
}

const monthOf = (now: Date) => `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
const monthKey = (now: Date) => `quota:${monthOf(now)}`;

function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.ceil((next - now.getTime()) / 1000);
}

export class RateLimiter extends DurableObject {
  /** Counts one request against the minute window and the month, unless either is exhausted. */
  hit(limits: RateLimits, nowMs: number = Date.now()): RateDecision {
    return this.take(limits, 1, nowMs).decision;
  }

  /**
   * Counts up to `want` requests at once for an isolate to admit without asking again (docs/decisions.md
   * D55): never more than remains of the minute or the month, so all isolates together never exceed
   * either. Unused permits of the caller's earlier leases are given back first, each at most once.
   */
  lease(request: LeaseRequest, nowMs: number = Date.now()): LeaseGrant {
    for (const u of request.unused ?? []) this.giveBack(u, nowMs);
    const want = Math.max(1, Math.floor(request.want));
    return this.take(request.limits, want, nowMs);
  }

  private take(limits: RateLimits, want: number, nowMs: number): LeaseGrant {
    const kv = this.ctx.storage.kv;
    const now = new Date(nowMs);
    const windowStart = nowMs - (nowMs % 60_000);
    const stored = kv.get<MinuteWindow>("minute");
    const minute = stored && stored.start === windowStart ? stored : { start: windowStart, count: 0 };
    const qKey = monthKey(now);
    const quotaUsed = kv.get<number>(qKey) ?? 0;
    const resetSeconds = Math.max(1, Math.ceil((windowStart + 60_000 - nowMs) / 1000));
    const base = { limit: limits.perMinute, resetSeconds, quotaLimit: limits.perMonth };
    const where = { now: nowMs, windowStart, windowEnd: windowStart + 60_000, month: monthOf(now) };

    if (quotaUsed >= limits.perMonth) {
      const retry = secondsToNextMonth(now);
      const decision: RateDecision = {
        ...base,
        allowed: false,
        reason: "quota_exceeded",
        remaining: Math.max(0, limits.perMinute - minute.count),
        quotaUsed,
        retryAfterSeconds: retry,
      };
      return { ...where, granted: 0, decision };
    }
    if (minute.count >= limits.perMinute) {
      const decision: RateDecision = { ...base, allowed: false, reason: "rate_limited", remaining: 0, quotaUsed, retryAfterSeconds: resetSeconds };
      return { ...where, granted: 0, decision };
    }
    const granted = Math.min(want, limits.perMinute - minute.count, limits.perMonth - quotaUsed);
    minute.count += granted;
    kv.put("minute", minute);
    if (quotaUsed === 0) this.forgetOldMonths(qKey);
    kv.put(qKey, quotaUsed + granted);
    // The first permit is spent by the request that asked; the rest are still counted as used.
    const decision: RateDecision = {
      ...base,
      allowed: true,
      reason: null,
      remaining: limits.perMinute - minute.count,
      quotaUsed: quotaUsed + granted,
      retryAfterSeconds: 0,
    };
    return { ...where, granted, decision };
  }

  /** Returns unspent permits to the month they were counted in, and to the minute while it is still open. */
  private giveBack(unused: UnusedPermits, nowMs: number): void {
    const count = Math.max(0, Math.floor(unused.count));
    if (count === 0) return;
    const kv = this.ctx.storage.kv;
    const stored = kv.get<MinuteWindow>("minute");
    if (stored && stored.start === unused.windowStart) kv.put("minute", { start: stored.start, count: Math.max(0, stored.count - count) });
    const qKey = `quota:${unused.month}`;
    if (qKey !== monthKey(new Date(nowMs))) return;
    const used = kv.get<number>(qKey) ?? 0;
    kv.put(qKey, Math.max(0, used - count));
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
