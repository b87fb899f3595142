// Builds a signed webhook request and makes one delivery attempt. I/O only through the injected
// fetch; time only through the injected Clock.
import { err, ok, type Clock, type HttpFetch, type Result } from "../types";
import type { AttemptOutcome } from "./classify";
import { sign } from "./sign";

export const API_VERSION = "2026-10-10"; // docs/decisions.md D10
export const DEFAULT_USER_AGENT = "EmailAuthMonitor-Webhooks/1.0";
export const DELIVERY_TIMEOUT_MS = 10_000; // docs/decisions.md D11: answer within 10 seconds
export const RESPONSE_BODY_CAP_BYTES = 4096; // docs/decisions.md D20: read at most a few KB

export interface WebhookEvent {
  id: string; // evt_…; also the webhook-id, stable across retries and redeliveries
  type: string;
  timestamp: Date | string; // when the event happened (body field), not when it is signed
  data: Record<string, unknown>;
}

export interface BuildInput {
  event: WebhookEvent;
  attempt: number; // 1-based
  deliveryId: string;
  secrets: readonly string[]; // newest first; two during a rotation
  now: Date; // signing time: webhook-timestamp is fresh on every attempt (docs/decisions.md D11)
  userAgent?: string;
}

export interface BuiltDelivery {
  headers: Record<string, string>;
  body: string;
}

/** The request of one attempt: the JSON body of docs/decisions.md D10 and its Standard Webhooks headers. */
export async function buildDelivery(input: BuildInput): Promise<Result<BuiltDelivery>> {
  const { event, attempt, deliveryId, secrets, now } = input;
  const timestamp = typeof event.timestamp === "string" ? event.timestamp : event.timestamp.toISOString();
  const body = JSON.stringify({ id: event.id, type: event.type, api_version: API_VERSION, timestamp, data: event.data });
  const signedAt = Math.floor(now.getTime() / 1000);
  const signature = await sign({ id: event.id, timestamp: signedAt, body }, secrets);
  if (!signature.ok) return err(signature.error);
  return ok({
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": event.id,
      "webhook-timestamp": String(signedAt),
      "webhook-signature": signature.value,
      "x-service-event": event.type,
      "x-service-delivery": `${deliveryId}/${attempt}`,
      "user-agent": input.userAgent ?? DEFAULT_USER_AGENT,
    },
  });
}

export interface AttemptResult {
  status: number | null; // null when no response arrived
  error: "timeout" | "network" | null;
  errorMessage: string | null; // for the delivery log; never shown to other tenants
  durationMs: number;
  responseBody: string; // the first 4 KB at most, decoded as UTF-8
  /** The Retry-After header, kept only for 429 and 503 (docs/decisions.md D11 honours it there). */
  retryAfter: string | null;
}

export interface AttemptOptions {
  clock: Clock;
  timeoutMs?: number;
}

/**
 * One POST to the target. Redirects are not followed (redirect: "manual"; 3xx is a failed attempt,
 * docs/decisions.md D11). The timeout covers the response headers and the capped body read; a response
 * whose headers arrived in time keeps its status even when its body is cut short.
 */
export async function attemptDelivery(url: string, built: BuiltDelivery, fetch: HttpFetch, opts: AttemptOptions): Promise<AttemptResult> {
  const started = opts.clock.now().getTime();
  const elapsed = (): number => Math.max(0, opts.clock.now().getTime() - started);
  const signal = AbortSignal.timeout(opts.timeoutMs ?? DELIVERY_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", headers: built.headers, body: built.body, redirect: "manual", signal });
  } catch (e) {
    const timedOut = signal.aborted || (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError"));
    const message = e instanceof Error ? e.message : String(e);
    return {
      status: null,
      error: timedOut ? "timeout" : "network",
      errorMessage: timedOut ? "no response within the timeout" : message,
      durationMs: elapsed(),
      responseBody: "",
      retryAfter: null,
    };
  }
  const responseBody = await readCapped(response, RESPONSE_BODY_CAP_BYTES, signal);
  const status = response.status;
  return {
    status,
    error: null,
    errorMessage: null,
    durationMs: elapsed(),
    responseBody,
    retryAfter: status === 429 || status === 503 ? response.headers.get("retry-after") : null,
  };
}

/** The attempt as classifyResponse takes it. */
export function outcomeOf(result: AttemptResult): AttemptOutcome {
  return result.status !== null ? { status: result.status } : { error: result.error ?? "network" };
}

/**
 * Reads at most `cap` bytes of the body, then cancels the stream so no more is pulled from the
 * target. Stops early (keeping what it has) when `signal` aborts or the stream errors.
 */
async function readCapped(response: Response, cap: number, signal: AbortSignal): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let onAbort: () => void = () => {};
  const aborted = new Promise<null>((resolve) => {
    onAbort = () => resolve(null);
    if (signal.aborted) resolve(null);
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    while (size < cap) {
      const next = await Promise.race([reader.read(), aborted]);
      if (next === null || next.done) break;
      const chunk = next.value.subarray(0, cap - size); // a chunk may overshoot the cap: keep the head
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch {
    // a body that fails mid-way still leaves its first bytes for the log
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.length;
  }
  return new TextDecoder().decode(bytes); // a character cut at the cap becomes U+FFFD
}
