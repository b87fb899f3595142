// One delivery attempt of a queued (or manual) delivery: claim in the team's webhook log, re-check the
// target, sign with the current (and rotated) secret, POST, classify and record (docs/decisions.md D11,
// D141-D143). Does I/O (D1, the team object, DNS, HTTP, queue).
import { and, eq, inArray } from "drizzle-orm";
import { attemptDelivery, buildDelivery, classifyResponse, outcomeOf, queueHops, type Classification, type WebhookEvent } from "../../core/webhooks";
import type { ClaimInput, ClaimResult } from "../../durable-objects/team-webhooks/types";
import { webhookEndpoints } from "../../db/schema";
import type { Services } from "../../services";
import { type AttemptRecord, QUEUE_MAX_DELAY_SECONDS, recordOutcome, sendDeliver, writeStreak } from "./outcome";
import { signingSecrets } from "./secrets";
import { checkTarget } from "./target";
import { teamLog } from "./team-log";
import type { DeliveryRow, EndpointRow } from "./views";

/** An attempt in flight holds its delivery this long; a crash mid-attempt is picked up by the retry sweep. */
export const CLAIM_LEASE_MS = 60_000;
/** A message may arrive this much before next_retry_at and still count as due. */
export const EARLY_TOLERANCE_MS = 5_000;

export interface DeliverOptions {
  /** Test and redeliver: attempted even when the endpoint is disabled. */
  manual?: boolean;
  /** The endpoint row, when the caller just loaded it within the team (test, redeliver): not read again. */
  endpoint?: EndpointRow;
}

/** Which delivery: a deliver message names all three; the endpoint is loaded within the team from D1. */
export interface DeliveryRef {
  teamId: number;
  endpointId: number;
  deliveryId: number;
}

export async function deliverOne(svc: Services, ref: DeliveryRef, opts: DeliverOptions = {}): Promise<DeliveryRow | null> {
  const given = opts.endpoint?.id === ref.endpointId && opts.endpoint.teamId === ref.teamId ? opts.endpoint : undefined;
  const e =
    given ??
    (await svc.db.query.webhookEndpoints.findFirst({
      where: and(eq(webhookEndpoints.id, ref.endpointId), eq(webhookEndpoints.teamId, ref.teamId)),
    }));
  if (!e) return null; // the endpoint was deleted, and its deliveries with it
  const now = svc.clock.now();
  const decided = await teamLog(svc, { id: e.teamId }).claim(claimInput(e, ref.deliveryId, opts.manual === true, now));
  return finishDelivery(svc, e, decided, now);
}

function claimInput(e: EndpointRow, deliveryId: number, manual: boolean, now: Date): ClaimInput {
  return {
    teamId: e.teamId,
    deliveryId,
    endpointId: e.id,
    endpointEnabled: e.enabled,
    manual,
    nowMs: now.getTime(),
    leaseMs: CLAIM_LEASE_MS,
    earlyToleranceMs: EARLY_TOLERANCE_MS,
  };
}

/** A claimed delivery of a queue batch, or why there is nothing to attempt (`e` null: the endpoint is gone). */
export interface BatchClaim {
  ref: DeliveryRef;
  e: EndpointRow | null;
  decided: ClaimResult | null;
  now: Date;
}

/**
 * The deliver messages of one queue batch for ONE team: their endpoints in one D1 read (within the team)
 * and their claims in one call to the team's log, instead of one of each per message. Throws when either
 * fails: the caller retries those messages.
 */
export async function claimBatch(svc: Services, teamId: number, refs: DeliveryRef[]): Promise<BatchClaim[]> {
  const ids = [...new Set(refs.map((r) => r.endpointId))];
  const rows = await svc.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.teamId, teamId), inArray(webhookEndpoints.id, ids)));
  const byId = new Map(rows.map((e) => [e.id, e]));
  const now = svc.clock.now();
  const known = refs.filter((r) => byId.has(r.endpointId));
  const decided =
    known.length === 0
      ? []
      : await teamLog(svc, { id: teamId }).claimMany(known.map((r) => claimInput(byId.get(r.endpointId) as EndpointRow, r.deliveryId, false, now)));
  const of = new Map(known.map((r, i) => [r, decided[i] ?? null]));
  return refs.map((ref) => ({ ref, e: byId.get(ref.endpointId) ?? null, decided: of.get(ref) ?? null, now }));
}

/** What a claim decided, carried out: nothing, the streak's D1 copy healed, a hop, or the attempt and its outcome. */
export async function finishDelivery(svc: Services, e: EndpointRow, decided: ClaimResult, now: Date): Promise<DeliveryRow | null> {
  switch (decided.kind) {
    case "missing":
      return null;
    case "settled":
      // A replay of a recorded outcome: D1's copy of the streak is written again (a no-op unless the
      // write after that outcome was lost: D143).
      if (decided.streak !== null) await writeStreak(svc, e, decided.streak);
      return decided.row;
    case "skipped":
    case "busy":
      return decided.row;
    case "early": {
      // Not due. A message that waited a full queue hop carries the rest of a long wait on; any other
      // early message is a duplicate and is dropped (the due one, or the retry sweep, will come).
      const d = decided.row;
      const hopped = now.getTime() - d.updatedAt >= QUEUE_MAX_DELAY_SECONDS * 1000 - 60_000;
      if (hopped && d.nextRetryAt !== null)
        await sendDeliver(svc, e, d.id, queueHops((d.nextRetryAt - now.getTime()) / 1000, QUEUE_MAX_DELAY_SECONDS).firstHop);
      return d;
    }
    case "claimed": {
      const ev = decided.event;
      const payload = parsePayload(ev.payload);
      const stamped = (payload as { timestamp?: unknown } | null)?.timestamp;
      const timestamp = typeof stamped === "string" ? stamped : new Date(ev.createdAt);
      const event: WebhookEvent = { id: ev.id, type: ev.type, timestamp, data: eventData(payload) };
      const { verdict, record } = await attempt(svc, decided.row, e, event, now);
      return recordOutcome(svc, decided.row, e, verdict, record, svc.clock.now());
    }
  }
}

/** The stored body; a body that does not parse is sent with empty data rather than never. */
export function parsePayload(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
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
