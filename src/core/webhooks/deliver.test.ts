// Building signed deliveries and one attempt against a fetch stand-in: timeout, redirects, body cap.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { Clock, HttpFetch } from "../types";
import { classifyResponse } from "./classify";
import { attemptDelivery, buildDelivery, outcomeOf, type BuiltDelivery } from "./deliver";
import { generateSecret } from "./sign";

const EVENT = {
  id: "evt_01J9ZK",
  type: "domain.verified",
  timestamp: new Date("2026-10-10T12:00:00Z"),
  data: { domain: { id: 7, name: "example.com" } },
};
const BUILT: BuiltDelivery = { headers: { "content-type": "application/json" }, body: "{}" };
const URL_ = "https://hooks.example.com/in";

/** A clock that moves 25 ms on every reading. */
const steppingClock = (): Clock => {
  let t = Date.parse("2026-10-10T12:00:00Z");
  return {
    now: () => {
      t += 25;
      return new Date(t);
    },
  };
};

type Call = { input: string | Request; init: RequestInit | undefined };
function fakeFetch(respond: (init: RequestInit | undefined) => Promise<Response> | Response): HttpFetch & { calls: Call[] } {
  const calls: Call[] = [];
  const f = async (input: string | Request, init?: RequestInit) => {
    calls.push({ input, init });
    return respond(init);
  };
  return Object.assign(f, { calls });
}

const neverAnswers = (init: RequestInit | undefined) =>
  new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));

describe("buildDelivery", () => {
  it("builds the docs/decisions.md D10 body and headers, signed so the standardwebhooks oracle accepts it", async () => {
    const [fresh, old] = [generateSecret(), generateSecret()];
    const now = new Date();
    const r = await buildDelivery({ event: EVENT, attempt: 3, deliveryId: "dlv_42", secrets: [fresh, old], now });
    if (!r.ok) throw new Error(r.error);
    const { headers, body } = r.value;
    expect(JSON.parse(body)).toEqual({
      id: "evt_01J9ZK",
      type: "domain.verified",
      api_version: "2026-10-10",
      timestamp: "2026-10-10T12:00:00.000Z",
      data: { domain: { id: 7, name: "example.com" } },
    });
    expect(headers).toMatchObject({
      "content-type": "application/json",
      "webhook-id": "evt_01J9ZK",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "x-service-event": "domain.verified",
      "x-service-delivery": "dlv_42/3",
    });
    expect(headers["user-agent"]).toBeTruthy();
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    for (const secret of [fresh, old]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("keeps the webhook-id and re-signs with a fresh timestamp on a redelivery", async () => {
    const secret = generateSecret();
    const a = await buildDelivery({ event: EVENT, attempt: 1, deliveryId: "d", secrets: [secret], now: new Date(1_000_000_000_000) });
    const b = await buildDelivery({ event: EVENT, attempt: 1, deliveryId: "d", secrets: [secret], now: new Date(1_000_000_060_000) });
    if (!a.ok || !b.ok) throw new Error("build failed");
    expect(a.value.headers["webhook-id"]).toBe(b.value.headers["webhook-id"]);
    expect(a.value.body).toBe(b.value.body);
    expect(a.value.headers["webhook-signature"]).not.toBe(b.value.headers["webhook-signature"]);
  });

  it("returns an error for a bad or missing secret", async () => {
    const base = { event: EVENT, attempt: 1, deliveryId: "d", now: new Date() };
    expect((await buildDelivery({ ...base, secrets: [] })).ok).toBe(false);
    expect((await buildDelivery({ ...base, secrets: ["nope"] })).ok).toBe(false);
  });
});

describe("attemptDelivery", () => {
  it("POSTs the built request once with redirect: manual and a timeout signal", async () => {
    const f = fakeFetch(() => new Response("thanks", { status: 200 }));
    const r = await attemptDelivery(URL_, { headers: { "webhook-id": "evt_1" }, body: '{"a":1}' }, f, { clock: steppingClock() });
    expect(r).toEqual({ status: 200, error: null, errorMessage: null, durationMs: 25, responseBody: "thanks", retryAfter: null });
    expect(f.calls).toHaveLength(1);
    const init = f.calls[0]?.init;
    expect(f.calls[0]?.input).toBe(URL_);
    expect(init?.method).toBe("POST");
    expect(init?.redirect).toBe("manual");
    expect(init?.body).toBe('{"a":1}');
    expect(init?.headers).toEqual({ "webhook-id": "evt_1" });
    expect(init?.signal).toBeInstanceOf(AbortSignal);
    expect(classifyResponse(outcomeOf(r))).toBe("delivered");
  });

  it("does not follow a 3xx: it is a failed, retryable attempt", async () => {
    const f = fakeFetch(() => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }));
    const r = await attemptDelivery(URL_, BUILT, f, { clock: steppingClock() });
    expect(f.calls).toHaveLength(1);
    expect(r.status).toBe(302);
    expect(classifyResponse(outcomeOf(r))).toBe("retry");
  });

  it("times out when no response arrives", async () => {
    const f = fakeFetch(neverAnswers);
    const r = await attemptDelivery(URL_, BUILT, f, { clock: steppingClock(), timeoutMs: 50 });
    expect(r).toMatchObject({ status: null, error: "timeout", responseBody: "", retryAfter: null });
    expect(classifyResponse(outcomeOf(r))).toBe("retry");
  });

  it("reports a network error", async () => {
    const f = fakeFetch(() => Promise.reject(new TypeError("connection refused")));
    const r = await attemptDelivery(URL_, BUILT, f, { clock: steppingClock() });
    expect(r).toMatchObject({ status: null, error: "network", errorMessage: "connection refused" });
    expect(outcomeOf(r)).toEqual({ error: "network" });
  });

  it("reads at most 4 KB of the body and stops pulling from the target", async () => {
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulls++;
          c.enqueue(new Uint8Array(1000).fill(0x61));
        },
      },
      { highWaterMark: 0 },
    );
    const f = fakeFetch(() => new Response(endless, { status: 500 }));
    const r = await attemptDelivery(URL_, BUILT, f, { clock: steppingClock() });
    expect(r.status).toBe(500);
    expect(r.responseBody).toBe("a".repeat(4096));
    expect(pulls).toBeLessThanOrEqual(8);
  });

  it("cuts a single large chunk at 4 KB", async () => {
    const f = fakeFetch(() => new Response("é".repeat(5000), { status: 400 })); // 10,000 bytes
    const r = await attemptDelivery(URL_, BUILT, f, { clock: steppingClock() });
    expect(new TextEncoder().encode(r.responseBody.replace(/\uFFFD$/, "")).length).toBeLessThanOrEqual(4096);
    expect(r.responseBody.startsWith("é".repeat(2048))).toBe(true);
  });

  it("keeps the status when the body stalls past the timeout", async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("partial"));
      },
    });
    const f = fakeFetch(() => new Response(stalled, { status: 202 }));
    const r = await attemptDelivery(URL_, BUILT, f, { clock: steppingClock(), timeoutMs: 50 });
    expect(r).toMatchObject({ status: 202, error: null, responseBody: "partial" });
  });

  it("keeps Retry-After for 429 and 503 only", async () => {
    const reply = (status: number) => fakeFetch(() => new Response("", { status, headers: { "retry-after": "120" } }));
    const opts = { clock: steppingClock() };
    expect((await attemptDelivery(URL_, BUILT, reply(429), opts)).retryAfter).toBe("120");
    expect((await attemptDelivery(URL_, BUILT, reply(503), opts)).retryAfter).toBe("120");
    expect((await attemptDelivery(URL_, BUILT, reply(500), opts)).retryAfter).toBeNull();
  });
});
