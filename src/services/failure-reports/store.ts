// Every query on dmarc_failures, behind one narrow interface (insert a sample, list a page, count,
// purge older than), so the per-domain storage can move without touching its callers. Rows hold only
// what docs/decisions.md D106 lets the service keep. Does I/O (D1).
import { and, count, desc, eq, gte, lt, sql } from "drizzle-orm";
import { dmarcFailures } from "../../db/schema";
import type { Services } from "../../services";
import { type PurgeOutcome, purgeInBatches } from "../purge";

/** One stored failure sample, as the store takes and returns it. */
export interface FailureRow {
  id: number;
  reportingOrg: string | null;
  /** Epoch ms, or null when the report had no readable Arrival-Date. */
  arrivalDate: number | null;
  sourceIp: string | null;
  authFailure: string | null;
  authResults: string | null;
  identityAlignment: string | null;
  dkimDomain: string | null;
  dkimSelector: string | null;
  deliveryResult: string | null;
  /** Epoch ms the service received the report. */
  receivedAt: number;
}

export type NewFailure = Omit<FailureRow, "id" | "receivedAt">;

/** Received-at bounds in epoch ms: from inclusive, to exclusive; either may be absent. */
export interface ReceivedRange {
  fromMs?: number;
  toMs?: number;
}

const inRange = (domainId: number, r: ReceivedRange) =>
  and(
    eq(dmarcFailures.domainId, domainId),
    r.fromMs === undefined ? undefined : gte(dmarcFailures.receivedAt, new Date(r.fromMs)),
    r.toMs === undefined ? undefined : lt(dmarcFailures.receivedAt, new Date(r.toMs)),
  );

export async function insertFailure(svc: Services, domainId: number, row: NewFailure, receivedAt: Date): Promise<void> {
  await svc.db.insert(dmarcFailures).values({
    domainId,
    reportingOrg: row.reportingOrg,
    arrivalDate: row.arrivalDate === null ? null : new Date(row.arrivalDate),
    sourceIp: row.sourceIp,
    authFailure: row.authFailure,
    authResults: row.authResults,
    identityAlignment: row.identityAlignment,
    dkimDomain: row.dkimDomain,
    dkimSelector: row.dkimSelector,
    deliveryResult: row.deliveryResult,
    receivedAt,
  });
}

/** A page of one domain's samples, newest received first, by the (domain_id, created_at) index. */
export async function listFailures(svc: Services, domainId: number, range: ReceivedRange, page: { limit: number; offset: number }): Promise<FailureRow[]> {
  const rows = await svc.db
    .select()
    .from(dmarcFailures)
    .where(inRange(domainId, range))
    .orderBy(desc(dmarcFailures.receivedAt), desc(dmarcFailures.id))
    .limit(page.limit)
    .offset(page.offset);
  return rows.map((r) => ({
    id: r.id,
    reportingOrg: r.reportingOrg,
    arrivalDate: r.arrivalDate?.getTime() ?? null,
    sourceIp: r.sourceIp,
    authFailure: r.authFailure,
    authResults: r.authResults,
    identityAlignment: r.identityAlignment,
    dkimDomain: r.dkimDomain,
    dkimSelector: r.dkimSelector,
    deliveryResult: r.deliveryResult,
    receivedAt: r.receivedAt.getTime(),
  }));
}

export async function countFailures(svc: Services, domainId: number, range: ReceivedRange): Promise<number> {
  const row = await svc.db.select({ n: count() }).from(dmarcFailures).where(inRange(domainId, range)).get();
  return Number(row?.n ?? 0);
}

/** Deletes every sample received before `cutoffMs`, in bounded batches by the created_at index (src/services/purge.ts). */
export function purgeFailuresBefore(svc: Services, cutoffMs: number, budgetMs?: number): Promise<PurgeOutcome> {
  return purgeInBatches(
    svc,
    "dmarc_failures",
    (limit) => sql`DELETE FROM dmarc_failures WHERE id IN (SELECT id FROM dmarc_failures WHERE created_at < ${cutoffMs} LIMIT ${limit}) RETURNING 1 AS one`,
    budgetMs,
  );
}
