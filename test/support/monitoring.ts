// Monitoring test support: DNS zones of a monitored domain, a clocked Services, captured check messages, a fake queue batch, and readers for events, alerts and diffs. No real I/O.
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { generateKeyPair } from "../../src/core/dkim";
import type { CheckMessage } from "../../src/services/messages";
import { createServices, type Services } from "../../src/services";
import type { StubZone } from "./doh-stub";
import { outboxAndLogEvents } from "./webhooks";
import { call, json, unique, type TestTeam } from "./api";

export interface ZoneOptions {
  spf?: string;
  dmarc?: string | null;
  verifyValue?: string | null;
  dkimRecord?: string | null;
  listedOnSpamcop?: boolean;
}

export const MX_IP = "192.0.2.10";

/** A domain with SPF, DMARC, one MX, a DKIM key at google._domainkey and, optionally, its ownership record. */
export function zoneFor(name: string, o: ZoneOptions = {}): StubZone {
  const zone: StubZone = {
    [name]: { TXT: [o.spf ?? "v=spf1 include:_spf.google.com -all"], MX: [{ preference: 10, exchange: `mx.${name}` }] },
    [`mx.${name}`]: { A: [MX_IP] },
    "_spf.google.com": { TXT: ["v=spf1 ip4:203.0.113.0/24 -all"] },
    "_spf.example.net": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
  };
  if (o.dmarc !== null) zone[`_dmarc.${name}`] = { TXT: [o.dmarc ?? "v=DMARC1; p=reject; rua=mailto:dmarc@example.org"] };
  if (o.verifyValue) zone[`_emailauth-verify.${name}`] = { TXT: [o.verifyValue] };
  if (o.dkimRecord) zone[`google._domainkey.${name}`] = { TXT: [o.dkimRecord] };
  if (o.listedOnSpamcop) zone[`${MX_IP.split(".").reverse().join(".")}.bl.spamcop.net`] = { A: ["127.0.0.2"] };
  return zone;
}

export async function dkimRecord(name: string): Promise<{ record: string; fingerprint: string }> {
  const k = await generateKeyPair({ domain: name, selector: "google", algorithm: "ed25519" });
  if (!k.ok) throw new Error(k.error);
  return { record: k.value.dns.value, fingerprint: k.value.fingerprint };
}

export const newDomainName = () => `${unique("mon")}.com`;

export interface AddedDomain {
  id: number;
  name: string;
  verification: { host: string; type: string; value: string };
}

export async function addDomain(team: TestTeam, name = newDomainName()): Promise<AddedDomain> {
  const res = await call("/api/v1/domains", { method: "POST", token: team.full, body: { name } });
  if (res.status !== 201) throw new Error(`add failed: ${res.status} ${await res.text()}`);
  return (await json<{ data: AddedDomain }>(res)).data;
}

/** Captures check messages instead of letting the real queue run them in the background. */
export function captureChecks() {
  const sent: CheckMessage[] = [];
  const spy = vi.spyOn(env.CHECKS_QUEUE, "sendBatch").mockImplementation(async (msgs) => {
    for (const m of msgs) sent.push(m.body as CheckMessage);
    return undefined as never;
  });
  return { sent, restore: () => spy.mockRestore() };
}

export function clockedServices(at: Date | (() => Date)): Services {
  const now = typeof at === "function" ? at : () => at;
  return createServices(env, { clock: { now } });
}

export interface FakeMessage {
  id: string;
  body: unknown;
  attempts: number;
  timestamp: Date;
  ack: ReturnType<typeof vi.fn>;
  retry: ReturnType<typeof vi.fn>;
}

export function fakeBatch(bodies: unknown[], queue = "emailauth-checks") {
  const messages: FakeMessage[] = bodies.map((body, i) => ({ id: `m${i}`, body, attempts: 1, timestamp: new Date(), ack: vi.fn(), retry: vi.fn() }));
  const batch = { queue, messages, ackAll: vi.fn(), retryAll: vi.fn() } as unknown as MessageBatch<unknown>;
  return { batch, messages };
}

/** The domain's events: the D1 outbox rows not fanned out yet plus those already in its team's webhook log. */
export async function eventsOf(domainId: number): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const rows = await outboxAndLogEvents({ domainId });
  return rows.map((r) => ({ type: r.type, data: (r.payload as { data: Record<string, unknown> }).data }));
}

export async function alertsOf(domainId: number) {
  const rows = await env.DB.prepare("SELECT kind, subject, severity, occurrences, resolved_at FROM alerts WHERE domain_id = ? ORDER BY id")
    .bind(domainId)
    .all<{ kind: string; subject: string; severity: string; occurrences: number; resolved_at: number | null }>();
  return rows.results;
}

export interface DiffOf {
  check_id: string;
  category: string;
  field: string;
  before: string | null;
  after: string | null;
  severity: string;
}

/** A domain's diffs in id order: those copied into its object (docs/decisions.md D134) and any still in D1. */
export async function diffsOf(domainId: number): Promise<DiffOf[]> {
  const kept = await env.DOMAIN_STORE.getByName(`domain:${domainId}`).diffPage(10_000, 0);
  const pending = await env.DB.prepare("SELECT id, check_id, category, field, before, after, severity FROM diffs WHERE domain_id = ?")
    .bind(domainId)
    .all<DiffOf & { id: number }>();
  const byId = new Map<number, DiffOf>(pending.results.map(({ id, ...d }) => [id, d]));
  for (const d of kept.rows) {
    byId.set(d.id, { check_id: d.checkId, category: d.category, field: d.field, before: d.before, after: d.after, severity: d.severity });
  }
  return [...byId.entries()].sort((a, b) => a[0] - b[0]).map(([, d]) => d);
}

/** A domain's checks oldest first, as its object holds them (every check once copied, docs/decisions.md D134). */
export async function checksOf(domainId: number) {
  const kept = await env.DOMAIN_STORE.getByName(`domain:${domainId}`).checkPage(10_000, 0);
  return kept.rows.reverse();
}

/** Marks a domain verified directly (for tests that are not about verification). */
export async function markVerified(domainId: number, nextCheckAt: Date | null = null): Promise<void> {
  await env.DB.prepare("UPDATE domains SET verified = 1, verified_at = ?, next_check_at = ? WHERE id = ?")
    .bind(Date.now(), nextCheckAt ? nextCheckAt.getTime() : null, domainId)
    .run();
}
