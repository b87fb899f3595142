// The every-minute hosting sweep (cron): (1) retiring rows past safe_to_remove_at lose their custom
// hostname, id record and row (RFC 8461 §8.3 step 3); (2) rows whose Cloudflare state is not final, or
// whose id record lags the policy id, are synced again; (3) the id senders see in DNS is read for rows
// not looked at lately, raising or resolving the stale-id alert (drift.ts). Each step takes a bounded
// batch and starts no row once SWEEP_BUDGET_MS has passed, so a large backlog or a hanging API drains
// over several minutes. Does I/O (D1, DNS, Cloudflare API).
import { and, eq, isNull, lte, ne, or, sql } from "drizzle-orm";
import { compareServed, UNUSABLE_ID } from "../../core/mta-sts/hosting";
import { isStsCandidate, parseStsRecord } from "../../core/mta-sts/policy";
import { hostedMtaSts } from "../../db/schema";
import type { Services } from "../../services";
import { autoResolve, openAlertsOfKind } from "../alerts/auto-resolve";
import { auditWhen } from "../audit-when";
import { commit, commitAll } from "../commit";
import { systemContext } from "../context";
import { driftWrites } from "./drift";
import { type HostedRow, idHost, servedPolicy } from "./rows";
import { clientFor, forgetExternal, removeExternal, syncExternal } from "./sync";

const BATCH = 25;
/** A pending certificate is looked at again after this long (validation takes minutes). */
const HOSTNAME_RECHECK_MS = 5 * 60_000;
/** A failed API call is tried again on the next minute's sweep. */
const API_RETRY_MS = 50_000;
/** How often the published id is read when nothing changed. */
const PUBLISHED_RECHECK_MS = 15 * 60_000;
/**
 * No row is started after this much of the sweep has passed: a hanging API costs 10 s a call (the
 * client's timeout), so a full batch would run for minutes and the next minute's sweeps would pile up on
 * the same rows. The rows not reached are the longest-waiting ones of the next sweep.
 */
export const SWEEP_BUDGET_MS = 40_000;

/** True while the sweep started at `start` may begin work on another row. */
const inBudget = (svc: Services, start: Date): boolean => svc.clock.now().getTime() - start.getTime() < SWEEP_BUDGET_MS;

async function removeRetired(svc: Services, now: Date): Promise<number> {
  const due = await svc.db
    .select()
    .from(hostedMtaSts)
    .where(and(eq(hostedMtaSts.state, "retiring"), lte(hostedMtaSts.safeToRemoveAt, now)))
    .limit(BATCH)
    .all();
  let removed = 0;
  for (const row of due) {
    if (!inBudget(svc, now)) break;
    try {
      await removeExternal(svc, row);
    } catch (e) {
      console.error(JSON.stringify({ level: "error", msg: "mta-sts hosting removal", domain_id: row.domainId, error: String(e) }));
      continue;
    }
    // A PUT may have turned the row back on (a new id) while the API calls ran: only the row as retired
    // goes, and only then is the removal recorded; otherwise what was just deleted must be made again.
    const retired = and(eq(hostedMtaSts.domainId, row.domainId), eq(hostedMtaSts.state, "retiring"), eq(hostedMtaSts.policyId, row.policyId));
    const domain = { id: row.domainId, name: row.domainName };
    const resolves = (await openAlertsOfKind(svc.db, row.teamId, domain, "hosting"))
      .filter((a) => a.subject.startsWith("mta_sts."))
      .map((a) => autoResolve(svc.db, a, now));
    const [, deleted] = await commit(
      svc,
      [
        auditWhen(
          svc,
          systemContext(row.teamId),
          {
            verb: "mta_sts_hosting.remove",
            target: { type: "domain", id: row.domainId },
            summary: `${row.domainName}: hosting removed after mode none ran its course (RFC 8461 §8.3)`,
          },
          { when: sql`EXISTS (SELECT 1 FROM ${hostedMtaSts} WHERE ${retired})` },
        ),
        svc.db.delete(hostedMtaSts).where(retired).returning({ domainId: hostedMtaSts.domainId }),
        ...resolves.flatMap((r) => r.statements),
      ],
      resolves.map((r) => r.eventId),
    );
    if (deleted.length === 0) {
      await forgetExternal(svc, row);
      continue;
    }
    removed++;
  }
  return removed;
}

async function resync(svc: Services, now: Date): Promise<number> {
  if (!clientFor(svc)) return 0;
  const stale = new Date(now.getTime() - HOSTNAME_RECHECK_MS);
  const retry = new Date(now.getTime() - API_RETRY_MS);
  const rows = await svc.db
    .select()
    .from(hostedMtaSts)
    .where(
      and(
        or(
          isNull(hostedMtaSts.customHostnameId),
          ne(hostedMtaSts.hostnameStatus, "active"),
          ne(hostedMtaSts.certificateStatus, "active"),
          isNull(hostedMtaSts.certificateStatus),
          sql`json_extract(${hostedMtaSts.hostnameDetails}, '$.idRecordSynced') IS NOT ${hostedMtaSts.policyId} AND ${hostedMtaSts.idDelivery} = 'cname'`,
        ),
        or(
          isNull(hostedMtaSts.hostnameCheckedAt),
          lte(hostedMtaSts.hostnameCheckedAt, stale),
          and(sql`json_extract(${hostedMtaSts.hostnameDetails}, '$.apiError') IS NOT NULL`, lte(hostedMtaSts.hostnameCheckedAt, retry)),
        ),
      ),
    )
    .orderBy(hostedMtaSts.hostnameCheckedAt)
    .limit(BATCH)
    .all();
  let synced = 0;
  for (const row of rows) {
    if (!inBudget(svc, now)) break;
    await syncExternal(svc, row, true);
    synced++;
  }
  return synced;
}

/** The id in `_mta-sts.<domain>` TXT as senders resolve it; undefined when DNS failed (never "stale"). */
async function publishedId(svc: Services, row: HostedRow): Promise<string | null | undefined> {
  const answer = await svc.createResolver().query(idHost(row.domainName), "TXT");
  if (answer.kind === "temperror") return undefined;
  const sts = answer.kind === "records" ? answer.records.filter(isStsCandidate) : [];
  if (sts.length === 0) return null;
  // RFC 8461 §3.1: not exactly one record, or one that does not parse, is no policy for senders.
  const parsed = sts.length === 1 ? parseStsRecord(sts[0] ?? "") : null;
  return parsed?.ok ? parsed.value.id : UNUSABLE_ID;
}

async function checkPublished(svc: Services, now: Date): Promise<number> {
  const rows = await svc.db
    .select()
    .from(hostedMtaSts)
    .where(
      or(
        isNull(hostedMtaSts.publishedCheckedAt),
        lte(hostedMtaSts.publishedCheckedAt, new Date(now.getTime() - PUBLISHED_RECHECK_MS)),
        sql`${hostedMtaSts.publishedCheckedAt} < ${hostedMtaSts.policyChangedAt}`,
      ),
    )
    .orderBy(hostedMtaSts.publishedCheckedAt)
    .limit(BATCH)
    .all();
  let checked = 0;
  for (const row of rows) {
    if (!inBudget(svc, now)) break;
    checked++;
    const id = await publishedId(svc, row);
    const w = await driftWrites(svc, row, compareServed({ id: row.policyId, policy: servedPolicy(row) }, id, undefined), id, now);
    // Unknown DNS: still mark the row looked at, so one failing name does not hold the batch.
    if (id === undefined) w.statements.push(svc.db.update(hostedMtaSts).set({ publishedCheckedAt: now }).where(eq(hostedMtaSts.domainId, row.domainId)));
    await commitAll(svc, w.statements, w.eventIds);
  }
  return checked;
}

export async function sweepMtaStsHosting(svc: Services): Promise<{ removed: number; synced: number; checked: number }> {
  const now = svc.clock.now();
  const removed = await removeRetired(svc, now);
  const synced = await resync(svc, now);
  const checked = await checkPublished(svc, now);
  return { removed, synced, checked };
}
