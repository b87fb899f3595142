// Test helpers for webhooks: a receiver behind the DoH stub, a recording fake queue, fake batches,
// direct D1 factories for events and domains, and reads and writes of a team's webhook log object.
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { loadConfig } from "../../src/config";
import { createServices, type Services } from "../../src/services";
import { buildEvent, type EventType } from "../../src/services/events/emit";
import { type DohStub, installDohStub, type StubZone } from "./doh-stub";
import { call, json } from "./api";
import type { DeliveryRecord } from "../../src/durable-objects/team-webhooks/types";

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

// --- The team's webhook log object (docs/decisions.md D140): tests read and set its rows directly. ---

/** The team's log object, named as the service names it (services/webhooks/team-log.ts). */
export const teamLogOf = (teamId: number) => env.TEAM_WEBHOOKS.getByName(`team:${teamId}`);

type SqlValue = string | number | null;

/** Runs SQL inside the team's object and returns its rows. */
export async function teamSql<T = Record<string, SqlValue>>(teamId: number, query: string, ...binds: SqlValue[]): Promise<T[]> {
  return runInDurableObject(teamLogOf(teamId), (_instance, state) => state.storage.sql.exec(query, ...binds).toArray() as T[]);
}

/** A delivery as the old D1 rows looked (Date fields, parsed headers), so assertions read the same. */
export interface DeliveryRowView extends Omit<DeliveryRecord, "nextRetryAt" | "leasedUntil" | "deliveredAt" | "createdAt" | "updatedAt"> {
  nextRetryAt: Date | null;
  leasedUntil: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const date = (v: SqlValue | undefined): Date | null => (v === null || v === undefined ? null : new Date(Number(v)));

function deliveryView(r: Record<string, SqlValue>): DeliveryRowView {
  return {
    id: Number(r.id),
    endpointId: Number(r.endpoint_id),
    eventId: String(r.event_id),
    eventType: String(r.event_type),
    status: r.status as DeliveryRowView["status"],
    attempts: Number(r.attempts),
    responseStatus: r.response_status === null ? null : Number(r.response_status),
    responseBody: r.response_body === null ? null : String(r.response_body),
    responseHeaders: r.response_headers === null ? null : (JSON.parse(String(r.response_headers)) as Record<string, string>),
    error: r.error === null ? null : String(r.error),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    nextRetryAt: date(r.next_retry_at),
    leasedUntil: date(r.leased_until),
    deliveredAt: date(r.delivered_at),
    createdAt: date(r.created_at) as Date,
    updatedAt: date(r.updated_at) as Date,
  };
}

/** The team's deliveries (optionally only some ids or one event's), by id. */
export async function deliveriesOf(teamId: number, filter: { ids?: number[]; eventId?: string; endpointId?: number } = {}): Promise<DeliveryRowView[]> {
  const rows = await teamSql(teamId, "SELECT * FROM deliveries ORDER BY id");
  return rows
    .map(deliveryView)
    .filter((d) => (filter.ids === undefined || filter.ids.includes(d.id)) && (filter.eventId === undefined || d.eventId === filter.eventId))
    .filter((d) => filter.endpointId === undefined || d.endpointId === filter.endpointId);
}

/** One delivery of the team, or undefined. */
export const deliveryOf = async (teamId: number, id: number): Promise<DeliveryRowView | undefined> => (await deliveriesOf(teamId, { ids: [id] }))[0];

const COLUMNS: Record<string, string> = {
  status: "status",
  attempts: "attempts",
  error: "error",
  nextRetryAt: "next_retry_at",
  leasedUntil: "leased_until",
  createdAt: "created_at",
  updatedAt: "updated_at",
};

/** Sets fields of some of the team's deliveries (Dates as ms), as a test arranges state. */
export async function setDeliveries(teamId: number, ids: number[], set: Partial<Record<keyof typeof COLUMNS, SqlValue | Date>>): Promise<void> {
  const entries = Object.entries(set);
  const assignments = entries.map(([k]) => `${COLUMNS[k]} = ?`).join(", ");
  const values = entries.map(([, v]) => (v instanceof Date ? v.getTime() : (v ?? null)));
  for (const id of ids) await teamSql(teamId, `UPDATE deliveries SET ${assignments} WHERE id = ?`, ...values, id);
}

/** Every event the team's log holds, oldest first. */
export async function logEventsOf(
  teamId: number,
): Promise<Array<{ id: string; domainId: number | null; type: string; payload: Record<string, unknown>; createdAt: number }>> {
  const rows = await teamSql(teamId, "SELECT id, domain_id, type, payload, created_at FROM events ORDER BY created_at, rowid");
  return rows.map((r) => ({
    id: String(r.id),
    domainId: r.domain_id === null ? null : Number(r.domain_id),
    type: String(r.type),
    payload: JSON.parse(String(r.payload)) as Record<string, unknown>,
    createdAt: Number(r.created_at),
  }));
}

/**
 * Events as the outbox wrote them: the D1 rows not fanned out yet plus those already in their team's log
 * (fan-out moves each there and then deletes the D1 row; the real queue does it in the background).
 * D1 is read first: an event moving meanwhile is then found in the log. `match` filters on domain or team.
 */
export async function outboxAndLogEvents(match: {
  domainId?: number;
  teamId?: number;
}): Promise<Array<{ id: string; type: string; payload: Record<string, unknown>; createdAt: number }>> {
  const where = match.domainId !== undefined ? "domain_id = ?" : "team_id = ?";
  const key = match.domainId ?? match.teamId ?? 0;
  const d1 = await env.DB.prepare(`SELECT id, type, payload, created_at FROM events WHERE ${where} ORDER BY created_at, rowid`)
    .bind(key)
    .all<{ id: string; type: string; payload: string; created_at: number }>();
  let teams: number[];
  if (match.teamId !== undefined) teams = [match.teamId];
  else {
    const owner = await env.DB.prepare("SELECT team_id FROM domains WHERE id = ?").bind(key).first<{ team_id: number }>();
    // A deleted domain's events outlive it: look in every team's log of this test file.
    teams = owner ? [owner.team_id] : await allTeamLogs();
  }
  const seen = new Set(d1.results.map((r) => r.id));
  const out = d1.results.map((r) => ({ id: r.id, type: r.type, payload: JSON.parse(r.payload) as Record<string, unknown>, createdAt: r.created_at }));
  for (const teamId of teams) {
    for (const e of await logEventsOf(teamId)) {
      if (seen.has(e.id) || (match.domainId !== undefined && e.domainId !== match.domainId)) continue;
      seen.add(e.id);
      out.push({ id: e.id, type: e.type, payload: e.payload, createdAt: e.createdAt });
    }
  }
  // Stable: equal times keep D1's order, then the log's.
  return out.sort((a, b) => a.createdAt - b.createdAt);
}

async function allTeamLogs(): Promise<number[]> {
  const ids = await listDurableObjectIds(env.TEAM_WEBHOOKS);
  const teams = new Set<number>();
  for (const id of ids) {
    const [row] = await runInDurableObject(env.TEAM_WEBHOOKS.get(id), (_i, state) => [state.storage.kv.get<number>("team_id")]);
    if (typeof row === "number") teams.add(row);
  }
  return [...teams];
}
