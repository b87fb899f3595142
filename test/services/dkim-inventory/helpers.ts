// Test helpers for the DKIM inventory: a domain row inserted directly, keys, and a runner that commits
// a refresh the way the check consumer does (statements + built events in one batch).
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { generateKeyPair, type GeneratedKey, type KeyAlgorithm } from "../../../src/core/dkim";
import { dkimKeys, dkimSelectors, domains, events } from "../../../src/db/schema";
import { createServices, type Services } from "../../../src/services";
import type { DomainRow } from "../../../src/services/domains/get-domain";
import { buildEvent } from "../../../src/services/events/emit";
import type { InventoryRefresh } from "../../../src/services/dkim-inventory/refresh";
import { unique } from "../../support/api";

export const services = (now?: () => Date): Services => createServices(env, now ? { clock: { now } } : {});

export async function insertDomain(svc: Services, teamId: number, name = `${unique("dk")}.example`): Promise<DomainRow> {
  const [row] = await svc.db
    .insert(domains)
    .values({
      teamId,
      name,
      verified: true,
      verificationToken: unique("vt"),
      reportToken: unique("rt"),
    })
    .returning();
  if (!row) throw new Error("domain insert failed");
  return row;
}

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
