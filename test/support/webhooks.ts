// Test helpers for webhooks: a receiver behind the DoH stub, a recording fake queue, fake batches,
// and direct D1 factories for events and domains.
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { loadConfig } from "../../src/config";
import { createServices, type Services } from "../../src/services";
import { buildEvent, type EventType } from "../../src/services/events/emit";
import { type DohStub, installDohStub, type StubZone } from "./doh-stub";
import { call, json } from "./api";

export const PUBLIC_IP = "93.184.216.34";

export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type Responder = (req: Received) => Response | Promise<Response>;

/** DoH stub for the given hosts (all public unless set) plus an HTTPS receiver recording requests. */
export function installReceiver(zone: StubZone = {}): { stub: DohStub; received: Received[]; respond: (r: Responder) => void } {
  const received: Received[] = [];
  let responder: Responder = () => new Response("ok", { status: 200 });
  const stub = installDohStub(
    { "hooks.example.com": { A: [PUBLIC_IP] }, "other.example.com": { A: [PUBLIC_IP] }, ...zone },
    {
      passthrough: async (req) => {
        const r: Received = { url: req.url, headers: Object.fromEntries(req.headers), body: await req.text() };
        received.push(r);
        return responder(r);
      },
    },
  );
  return { stub, received, respond: (r) => (responder = r) };
}

export interface FakeQueue {
  sent: Array<{ body: unknown; delaySeconds?: number }>;
  queue: Queue;
}

export function fakeQueue(): FakeQueue {
  const sent: FakeQueue["sent"] = [];
  const queue = {
    send: async (body: unknown, o?: { delaySeconds?: number }) => void sent.push({ body, delaySeconds: o?.delaySeconds }),
    sendBatch: async (msgs: Iterable<{ body: unknown; delaySeconds?: number }>) => {
      for (const m of msgs) sent.push({ body: m.body, delaySeconds: m.delaySeconds });
    },
  } as unknown as Queue;
  return { sent, queue };
}

/**
 * Services with the production target rules (https only, no private addresses) whatever the local
 * .dev.vars says (the test pool reads it), a recording deliveries queue and an optional clock.
 */
export function testServices(q: FakeQueue = fakeQueue(), now?: () => Date): Services {
  const e = { ...env, DELIVERIES_QUEUE: q.queue };
  const config = { ...loadConfig(e), webhookAllowPrivate: false, webhookAllowInsecure: false };
  return createServices(e, now ? { config, clock: { now } } : { config });
}

export function fakeBatch(bodies: unknown[], queue = "emailauth-deliveries") {
  const messages = bodies.map((body, i) => ({ id: `m${i}`, body, attempts: 1, timestamp: new Date(), ack: vi.fn(), retry: vi.fn() }));
  return { queue, messages, ackAll: vi.fn(), retryAll: vi.fn() } as unknown as MessageBatch<unknown> & { messages: typeof messages };
}

export { insertDomain } from "./factories";

export async function insertEvent(svc: Services, teamId: number, type: EventType, domain?: { id: number; name: string }) {
  const ev = buildEvent(svc.db, { type, teamId, domain: domain ?? null, data: { note: "test" } }, new Date());
  await svc.db.batch([ev.statement]);
  return ev;
}

export interface CreatedWebhook {
  id: number;
  secret: string;
  [k: string]: unknown;
}

export async function createWebhook(token: string, body: Record<string, unknown>): Promise<CreatedWebhook> {
  const res = await call("/api/v1/webhooks", { method: "POST", token, body: { url: "https://hooks.example.com/in", events: ["*"], ...body } });
  if (res.status !== 201) throw new Error(`webhook create failed: ${res.status} ${await res.text()}`);
  return (await json<{ data: CreatedWebhook }>(res)).data;
}
