// Retry schedule, jitter bounds, Retry-After and queue hops; and the response classification table.
import { describe, expect, it } from "vitest";
import { classifyResponse, type AttemptOutcome, type Classification } from "./classify";
import { MAX_ATTEMPTS, MAX_QUEUE_DELAY_SECONDS, RETRY_SCHEDULE_SECONDS, nextRetryDelaySeconds, parseRetryAfter, queueHops } from "./retry";

const NOW = new Date("2026-10-10T12:00:00Z");
const mid = () => 0.5; // no jitter

describe("nextRetryDelaySeconds", () => {
  it("follows 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, then stops: 8 attempts in all", () => {
    const waits: number[] = [];
    let attempts = 1;
    for (let d = nextRetryDelaySeconds(attempts, null, mid, NOW); d !== null; d = nextRetryDelaySeconds(++attempts, null, mid, NOW)) {
      waits.push(d);
    }
    expect(waits).toEqual([60, 300, 1800, 7200, 21600, 43200, 86400]);
    expect(attempts).toBe(8);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(waits.reduce((a, b) => a + b, 0) / 3600).toBeCloseTo(44.6, 1); // "about two days"
    expect(nextRetryDelaySeconds(9, null, mid, NOW)).toBeNull();
  });

  it("keeps jitter within 10% of every step", () => {
    for (const [i, base] of RETRY_SCHEDULE_SECONDS.entries()) {
      for (const r of [0, 0.001, 0.25, 0.5, 0.75, 0.999999, 1]) {
        const d = nextRetryDelaySeconds(i + 1, undefined, () => r, NOW);
        expect(d).not.toBeNull();
        expect(d!).toBeGreaterThanOrEqual(Math.floor(base * 0.9));
        expect(d!).toBeLessThanOrEqual(Math.ceil(base * 1.1));
      }
    }
    expect(nextRetryDelaySeconds(1, null, () => 0, NOW)).toBe(54);
    expect(nextRetryDelaySeconds(1, null, () => 0.9999, NOW)).toBe(66);
    expect(nextRetryDelaySeconds(1, null, () => 7, NOW)).toBe(66); // a misbehaving source is clamped
  });

  it("honours a longer Retry-After (seconds or HTTP-date) and ignores a shorter one", () => {
    expect(nextRetryDelaySeconds(1, "600", mid, NOW)).toBe(600);
    expect(nextRetryDelaySeconds(1, "10", mid, NOW)).toBe(60);
    expect(nextRetryDelaySeconds(1, "Sat, 10 Oct 2026 13:00:00 GMT", mid, NOW)).toBe(3600);
    expect(nextRetryDelaySeconds(3, "Sat, 10 Oct 2026 12:01:00 GMT", mid, NOW)).toBe(1800);
    expect(nextRetryDelaySeconds(1, "Sat, 10 Oct 2026 11:00:00 GMT", mid, NOW)).toBe(60); // in the past
    expect(nextRetryDelaySeconds(1, "garbage", mid, NOW)).toBe(60);
    expect(nextRetryDelaySeconds(8, "600", mid, NOW)).toBeNull(); // never extends the attempt count
  });

  it("caps a Retry-After at one day", () => {
    expect(nextRetryDelaySeconds(1, "999999999", mid, NOW)).toBe(86400);
    expect(nextRetryDelaySeconds(1, "Fri, 01 Jan 2100 00:00:00 GMT", mid, NOW)).toBe(86400);
  });
});

describe("parseRetryAfter (RFC 9110 §10.2.3)", () => {
  it("reads delta-seconds and HTTP-dates, and nothing else", () => {
    expect(parseRetryAfter("120", NOW)).toBe(120);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("Sat, 10 Oct 2026 12:00:30 GMT", NOW)).toBe(30);
    expect(parseRetryAfter("Saturday, 10-Oct-26 12:00:30 GMT", NOW)).toBe(30); // obsolete RFC 850 form
    for (const v of [null, undefined, "", "-5", "1.5", "soon", "2026-10-10T13:00:00Z"]) expect(parseRetryAfter(v, NOW), String(v)).toBeNull();
  });
});

describe("queueHops", () => {
  it("uses one hop up to the queue's 24 h maximum and splits longer waits", () => {
    expect(MAX_QUEUE_DELAY_SECONDS).toBe(86400);
    expect(queueHops(60)).toEqual({ firstHop: 60, remaining: 0 });
    expect(queueHops(86400)).toEqual({ firstHop: 86400, remaining: 0 });
    expect(queueHops(95040)).toEqual({ firstHop: 86400, remaining: 8640 }); // 24 h + 10% jitter
    expect(queueHops(86400, 43200)).toEqual({ firstHop: 43200, remaining: 43200 }); // older 12 h limit
    expect(queueHops(-5)).toEqual({ firstHop: 0, remaining: 0 });
    expect(queueHops(10.2)).toEqual({ firstHop: 11, remaining: 0 });
  });
});

describe("classifyResponse", () => {
  const table: [AttemptOutcome, Classification][] = [
    [{ status: 200 }, "delivered"],
    [{ status: 202 }, "delivered"],
    [{ status: 204 }, "delivered"],
    [{ status: 299 }, "delivered"],
    [{ status: 301 }, "retry"], // redirect not followed: a failed attempt
    [{ status: 302 }, "retry"],
    [{ status: 307 }, "retry"],
    [{ status: 308 }, "retry"],
    [{ status: 400 }, "final"],
    [{ status: 401 }, "final"],
    [{ status: 403 }, "final"],
    [{ status: 404 }, "final"],
    [{ status: 408 }, "retry"],
    [{ status: 409 }, "final"],
    [{ status: 410 }, "disable"],
    [{ status: 413 }, "final"],
    [{ status: 422 }, "final"],
    [{ status: 425 }, "retry"],
    [{ status: 429 }, "retry"],
    [{ status: 499 }, "final"],
    [{ status: 500 }, "retry"],
    [{ status: 502 }, "retry"],
    [{ status: 503 }, "retry"],
    [{ status: 504 }, "retry"],
    [{ status: 599 }, "retry"],
    [{ error: "timeout" }, "retry"],
    [{ error: "network" }, "retry"],
  ];
  it.each(table)("%j -> %s", (outcome, expected) => {
    expect(classifyResponse(outcome)).toBe(expected);
  });
});
