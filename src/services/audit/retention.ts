// Audit log retention (docs/audit.md "Retention", docs/limits.md, docs/decisions.md D234): the daily cron
// removes a team's oldest sealed entries past its plan's days, and in the same batch moves the chain's
// anchor (pruned_through_seq, pruned_hash) to the last removed entry, so verify starts there and still
// passes. Only a prefix of sealed entries is removed; the unsealed tail never is. Does I/O (D1).
import { and, eq, gte, gt, lte, sql } from "drizzle-orm";
import { auditChainHeads, auditEntries } from "../../db/schema";
import { AUDIT_RETENTION_DAYS, PLANS, type Plan } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { PURGE_BUDGET_MS } from "../purge";

/** Entries removed per team per batch (one DELETE over a primary-key range). */
const PRUNE_BATCH = 2_000;
/** Teams looked at per pass. */
const TEAMS_PER_PASS = 200;

export interface AuditPruneOutcome {
  teams: number;
  deleted: number;
  more: boolean;
}

const cutoffOf = (svc: Services, plan: Plan) => svc.clock.now().getTime() - AUDIT_RETENTION_DAYS[plan] * DAY_MS;

/** Removes up to PRUNE_BATCH of the team's oldest entries written before `cutoff`; returns how many. */
export async function pruneTeam(svc: Services, teamId: number, cutoff: number): Promise<number> {
  const head = await svc.db.query.auditChainHeads.findFirst({ where: eq(auditChainHeads.teamId, teamId) });
  if (!head || head.sealedSeq <= head.prunedThroughSeq) return 0;
  // The prefix ends before the first entry that is recent enough (clocks of two writers may disagree by a
  // little, so "older" is the prefix, never an entry after a newer one).
  const [firstKept] = await svc.db
    .select({ seq: sql<number | null>`MIN(${auditEntries.seq})` })
    .from(auditEntries)
    .where(and(eq(auditEntries.teamId, teamId), gt(auditEntries.seq, head.prunedThroughSeq), gte(auditEntries.at, new Date(cutoff))));
  const through = Math.min((firstKept?.seq ?? Number.POSITIVE_INFINITY) - 1, head.sealedSeq, head.prunedThroughSeq + PRUNE_BATCH);
  if (through <= head.prunedThroughSeq) return 0;
  const last = await svc.db.query.auditEntries.findFirst({ where: and(eq(auditEntries.teamId, teamId), eq(auditEntries.seq, through)) });
  if (!last?.hash) {
    // A missing or unsealed entry inside the sealed range: leave it for verify to report.
    console.error(JSON.stringify({ level: "error", msg: "audit prune skipped: the anchor entry is missing or unsealed", teamId, seq: through }));
    return 0;
  }
  const now = svc.clock.now();
  const [, gone] = await svc.db.batch([
    svc.db
      .update(auditChainHeads)
      .set({ prunedThroughSeq: through, prunedHash: last.hash, updatedAt: now })
      .where(and(eq(auditChainHeads.teamId, teamId), eq(auditChainHeads.prunedThroughSeq, head.prunedThroughSeq), gte(auditChainHeads.sealedSeq, through))),
    // Only if the anchor moved in this batch: two pruners never remove entries the anchor does not cover.
    svc.db
      .delete(auditEntries)
      .where(
        and(
          eq(auditEntries.teamId, teamId),
          gt(auditEntries.seq, head.prunedThroughSeq),
          lte(auditEntries.seq, through),
          sql`EXISTS (SELECT 1 FROM audit_chain_heads WHERE team_id = ${teamId} AND pruned_through_seq = ${through} AND pruned_hash = ${last.hash})`,
        ),
      ),
  ]);
  return (gone as { meta?: { changes?: number } }).meta?.changes ?? 0;
}

/** Daily cron: every team with sealed entries older than its plan keeps, until done or the budget is spent. */
export async function pruneAuditLogs(svc: Services, budgetMs = PURGE_BUDGET_MS): Promise<AuditPruneOutcome> {
  const started = Date.now();
  const cutoffs = sql.join(
    PLANS.map((p) => sql`WHEN ${p} THEN ${cutoffOf(svc, p)}`),
    sql` `,
  );
  let teams = 0;
  let deleted = 0;
  let after = 0;
  for (;;) {
    // Teams in id order; each EXISTS is one seek on (team_id, at).
    const due = await svc.db.all<{ id: number; cutoff: number }>(sql`SELECT t.id AS id, (CASE t.plan ${cutoffs} END) AS cutoff FROM teams t
      WHERE t.id > ${after} AND EXISTS (SELECT 1 FROM audit_entries e WHERE e.team_id = t.id AND e.at < (CASE t.plan ${cutoffs} END))
      ORDER BY t.id LIMIT ${TEAMS_PER_PASS}`);
    for (const { id, cutoff } of due) {
      teams++;
      for (;;) {
        const n = await pruneTeam(svc, id, cutoff);
        deleted += n;
        if (n < PRUNE_BATCH) break;
        if (Date.now() - started >= budgetMs) return log({ teams, deleted, more: true });
      }
      if (Date.now() - started >= budgetMs) return log({ teams, deleted, more: true });
    }
    const last = due[due.length - 1];
    if (due.length < TEAMS_PER_PASS || !last) return log({ teams, deleted, more: false });
    after = last.id;
  }
}

function log(outcome: AuditPruneOutcome): AuditPruneOutcome {
  if (outcome.deleted > 0 || outcome.more) console.log(JSON.stringify({ level: outcome.more ? "warn" : "info", msg: "audit log retention", ...outcome }));
  return outcome;
}
