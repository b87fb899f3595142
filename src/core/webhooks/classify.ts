// What one delivery attempt's outcome means for the delivery and the endpoint. No I/O.

export type AttemptOutcome = { status: number; error?: null } | { status?: null; error: "timeout" | "network" };

/**
 * delivered: 2xx. retry: try again on the schedule (counts as a failed attempt).
 * disable: 410 Gone, the endpoint is disabled at once (Standard Webhooks; docs/decisions.md D11).
 * final: the delivery fails now without retries (docs/decisions.md D11: "other 4xx").
 */
export type Classification = "delivered" | "retry" | "disable" | "final";

// Spec §6 Delivery rules 2: 5xx, 408, 425 and 429 are retried (RFC 9110 §15.5.9, RFC 8470 §5.2,
// RFC 6585 §4), as are timeouts and network errors.
const RETRYABLE_4XX = new Set([408, 425, 429]);

export function classifyResponse(outcome: AttemptOutcome): Classification {
  if (outcome.status === null || outcome.status === undefined) return "retry"; // timeout or network error
  const s = outcome.status;
  if (s >= 200 && s <= 299) return "delivered";
  if (s === 410) return "disable";
  if (RETRYABLE_4XX.has(s)) return "retry";
  if (s >= 400 && s <= 499) return "final";
  // 3xx: redirects are never followed (docs/decisions.md D11: "3xx is a failed attempt"). The spec lists
  // no rule for them, so they are treated like 5xx: a failed attempt that is retried, because a
  // redirect is often a transient misconfiguration (maintenance page, HTTPS move), and a redirect
  // that persists spends the retries and counts toward the 20-in-a-row disable rule (rule 4).
  // 5xx, and anything outside 200-599 that a fetch should never report, are retried as well.
  return "retry";
}
