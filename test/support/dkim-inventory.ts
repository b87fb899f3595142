// Test helpers for the DKIM inventory: a domain row inserted directly, keys, and a runner that commits
// a refresh the way the check consumer does (statements + built events in one batch).
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { generateKeyPair, type GeneratedKey, type KeyAlgorithm } from "../../src/core/dkim";
import { dkimKeys, dkimSelectors, events } from "../../src/db/schema";
import { createServices, type Services } from "../../src/services";
import { buildEvent } from "../../src/services/events/emit";
import type { InventoryRefresh } from "../../src/services/dkim-inventory/refresh";
import { insertDomain as insertOne } from "./factories";

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

export async function eventsOf(svc: Services, domainId: number) {
  const rows = await svc.db.select().from(events).where(eq(events.domainId, domainId)).orderBy(sql`rowid`);
  return rows.map((r) => r.payload as { type: string; data: Record<string, unknown> });
}
