// Test helpers for the DKIM inventory: a domain row inserted directly, keys, and a runner that commits
// a refresh the way the check consumer does (statements + built events in one batch).
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { generateKeyPair, type GeneratedKey, type KeyAlgorithm } from "../../src/core/dkim";
import { dkimKeys, dkimSelectors } from "../../src/db/schema";
import { createServices, type Services } from "../../src/services";
import { buildEvent } from "../../src/services/events/emit";
import type { InventoryRefresh } from "../../src/services/dkim-inventory/refresh";
import { insertDomain as insertOne } from "./factories";
import { outboxAndLogEvents } from "./webhooks";

export const services = (now?: () => Date): Services => createServices(env, now ? { clock: { now } } : {});

/** A verified domain row (the one factory of test/support/factories.ts). */
export const insertDomain = (_svc: Services, teamId: number, name?: string) => insertOne(teamId, name === undefined ? {} : { name });

export async function newKey(domain: string, selector: string, algorithm: KeyAlgorithm = "ed25519"): Promise<GeneratedKey> {
  const r = await generateKeyPair({ domain, selector, algorithm });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** Commits a refresh like the check consumer: its statements and its events in one batch. */
export async function commit(svc: Services, r: InventoryRefresh, now: Date): Promise<void> {
  const items = [...r.statements, ...r.events.map((e) => buildEvent(svc.db, e, now).statement)];
  const [first, ...rest] = items;
  if (first) await svc.db.batch([first, ...rest]);
}

export const selectorsOf = (svc: Services, domainId: number) =>
  svc.db.select().from(dkimSelectors).where(eq(dkimSelectors.domainId, domainId)).orderBy(dkimSelectors.selector);

export async function keysOf(svc: Services, domainId: number, selector: string) {
  const [row] = await svc.db
    .select()
    .from(dkimSelectors)
    .where(eq(dkimSelectors.domainId, domainId))
    .then((rs) => rs.filter((r) => r.selector === selector));
  if (!row) return [];
  return svc.db.select().from(dkimKeys).where(eq(dkimKeys.selectorId, row.id)).orderBy(dkimKeys.id);
}

/** The domain's events: D1 outbox rows not fanned out yet plus those already in the team's webhook log. */
export async function eventsOf(_svc: Services, domainId: number) {
  const rows = await outboxAndLogEvents({ domainId });
  return rows.map((r) => r.payload as { type: string; data: Record<string, unknown> });
}
