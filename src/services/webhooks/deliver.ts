// One delivery attempt of a queued (or manual) delivery: claim, re-check the target, sign with the
// current (and rotated) secret, POST, classify and record. Does I/O (D1, DNS, HTTP, queue).
import { and, eq, isNull, lte, or } from "drizzle-orm";
import { attemptDelivery, buildDelivery, classifyResponse, outcomeOf, queueHops, type Classification, type WebhookEvent } from "../../core/webhooks";
import { deliveries, events, webhookEndpoints } from "../../db/schema";
import type { Services } from "../../services";
import { type AttemptRecord, QUEUE_MAX_DELAY_SECONDS, recordOutcome, sendDeliver } from "./outcome";
import { signingSecrets } from "./secrets";
import { checkTarget } from "./target";
import type { DeliveryRow, EndpointRow } from "./views";

/** An attempt in flight holds its delivery this long; a crash mid-attempt is picked up by the retry sweep. */
export const CLAIM_LEASE_MS = 60_000;
/** A message may arrive this much before next_retry_at and still count as due. */
export const EARLY_TOLERANCE_MS = 5_000;

export interface DeliverOptions {
  /** Test and redeliver: attempted even when the endpoint is disabled. */
  manual?: boolean;
}

export async function deliverOne(svc: Services, deliveryId: number, opts: DeliverOptions = {}): Promise<DeliveryRow | null> {
  const [found] = await svc.db
    .select({ d: deliveries, e: webhookEndpoints, ev: events })
    .from(deliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, deliveries.endpointId))
    .innerJoin(events, eq(events.id, deliveries.eventId))
    .where(eq(deliveries.id, deliveryId))
    .limit(1);
  if (found?.d.status !== "pending") return found?.d ?? null; // gone or settled: nothing to do
  const { d, e, ev } = found;
  const now = svc.clock.now();

  if (!e.enabled && !opts.manual) {
    // Not sent while disabled; marked failed so sweeps stop picking it up (redeliver can resend it).
    const [row] = await svc.db
      .update(deliveries)
      .set({ status: "failed", error: "endpoint disabled; not sent", nextRetryAt: null, updatedAt: now })
      .where(and(eq(deliveries.id, d.id), eq(deliveries.status, "pending")))
      .returning();
    return row ?? d;
  }

  if (d.nextRetryAt && d.nextRetryAt.getTime() > now.getTime() + EARLY_TOLERANCE_MS) {
    // Not due. A message that waited a full queue hop carries the rest of a long wait on; any other
    // early message is a duplicate and is dropped (the due one, or the retry sweep, will come).
    const hopped = now.getTime() - d.updatedAt.getTime() >= QUEUE_MAX_DELAY_SECONDS * 1000 - 60_000;
    if (hopped) await sendDeliver(svc, d.id, queueHops((d.nextRetryAt.getTime() - now.getTime()) / 1000, QUEUE_MAX_DELAY_SECONDS).firstHop);
    return d;
  }

  const claimed = await svc.db
    .update(deliveries)
    .set({ nextRetryAt: new Date(now.getTime() + CLAIM_LEASE_MS), leasedUntil: new Date(now.getTime() + CLAIM_LEASE_MS), updatedAt: now })
    .where(
      and(
        eq(deliveries.id, d.id),
        eq(deliveries.status, "pending"),
        or(isNull(deliveries.nextRetryAt), lte(deliveries.nextRetryAt, new Date(now.getTime() + EARLY_TOLERANCE_MS))),
        or(isNull(deliveries.leasedUntil), lte(deliveries.leasedUntil, now)),
      ),
    )
    .returning({ id: deliveries.id });
  if (claimed.length === 0) return d; // another consumer holds it

  const stamped = (ev.payload as { timestamp?: unknown } | null)?.timestamp;
  const timestamp = typeof stamped === "string" ? stamped : ev.createdAt;
  const event: WebhookEvent = { id: ev.id, type: ev.type, timestamp, data: eventData(ev.payload) };
  const { verdict, record } = await attempt(svc, d, e, event, now);
  return recordOutcome(svc, d, e, verdict, record, svc.clock.now());
}

function eventData(payload: unknown): Record<string, unknown> {
  const data = (payload as { data?: unknown } | null)?.data;
  return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

async function attempt(
  svc: Services,
  d: DeliveryRow,
  e: EndpointRow,
  event: WebhookEvent,
  now: Date,
): Promise<{ verdict: Classification; record: AttemptRecord }> {
  const base: AttemptRecord = { attempt: d.attempts + 1, status: null, error: null, durationMs: null, body: null, headers: null, retryAfter: null };
  // The target is checked again before every attempt: DNS may have changed since it was saved.
  const target = await checkTarget(svc, e.url);
  if (!target.ok) {
    const transient = target.error.code === "dns_temperror" || target.error.code === "unresolvable";
    return { verdict: transient ? "retry" : "final", record: { ...base, error: `target refused: ${target.error.message}` } };
  }
  const secrets = await signingSecrets(svc, e, now);
  if (secrets === null) {
    console.error(JSON.stringify({ level: "error", msg: "cannot open webhook secret (WEBHOOK_SECRET_KEY missing or changed)", endpoint_id: e.id }));
    return { verdict: "retry", record: { ...base, error: "signing secret unavailable" } };
  }
  const built = await buildDelivery({ event, attempt: base.attempt, deliveryId: String(d.id), secrets, now });
  if (!built.ok) return { verdict: "retry", record: { ...base, error: `signing failed: ${built.error}` } };

  const seen: { headers: Headers | null } = { headers: null };
  const capture = async (input: string | Request, init?: RequestInit) => {
    const res = await svc.fetch(input, init);
    seen.headers = res.headers;
    return res;
  };
  const result = await attemptDelivery(target.value.href, built.value, capture, { clock: svc.clock });
  const verdict = classifyResponse(outcomeOf(result));
  const error =
    result.status === null
      ? result.error === "timeout"
        ? "timeout: no response within 10 seconds"
        : `network error: ${result.errorMessage ?? "unknown"}`
      : verdict === "delivered"
        ? null
        : result.status >= 300 && result.status < 400
          ? `redirect (${result.status}) not followed`
          : `receiver answered ${result.status}`;
  return {
    verdict,
    record: {
      ...base,
      status: result.status,
      error,
      durationMs: result.durationMs,
      body: result.responseBody,
      headers: keptHeaders(seen.headers),
      retryAfter: result.retryAfter,
    },
  };
}

/** Response headers for the delivery log: lower-case names, no cookies, at most 50, values capped. */
function keptHeaders(h: Headers | null): Record<string, string> | null {
  if (h === null) return null;
  const out: Record<string, string> = {};
  let n = 0;
  h.forEach((value, name) => {
    if (n >= 50 || name === "set-cookie") return;
    out[name] = value.slice(0, 512);
    n++;
  });
  return out;
}
