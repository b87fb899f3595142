// Sealing a team's audit entries into the hash chain (docs/audit.md "The chain", docs/decisions.md D231):
// the entries after the head, in seq order, get SHA-256(previous hash || entry) and the head moves to the
// last of them, in one D1 batch. Runs right after a commit whose batch wrote an entry, and from the
// minute cron for anything left (a failed seal never fails the change: it is already committed).
import { and, asc, eq, gt, is, isNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { SQLiteRaw } from "drizzle-orm/sqlite-core/query-builders/raw";
import { type ChainEntry, chainHash, GENESIS_HASH } from "../../core/audit/chain";
import { auditChainHeads, auditEntries } from "../../db/schema";
import type { Services } from "../../services";

/** commit.ts's Statement, named here so that commit.ts may import this file without a loop. */
type Statement = BatchItem<"sqlite">;

/** Entries sealed per batch: two statements each (D1 binds at most 100 parameters per statement, not per batch). */
const SEAL_BATCH = 100;
/** Rounds per call: a round lost to a concurrent sealer is read again. */
const MAX_ROUNDS = 20;

type EntryRow = typeof auditEntries.$inferSelect;

export const chainEntryOf = (r: EntryRow): ChainEntry => ({
  teamId: r.teamId,
  seq: r.seq,
  at: r.at.getTime(),
  actorKind: r.actorKind,
  actorId: r.actorId,
  actorLabel: r.actorLabel,
  face: r.face,
  verb: r.verb,
  targetType: r.targetType,
  targetId: r.targetId,
  summary: r.summary,
  ip: r.ip,
  userAgent: r.userAgent,
});

/** One round: seals up to SEAL_BATCH entries after the head. Returns how many, or null when another sealer moved the head first. */
async function sealRound(svc: Services, teamId: number): Promise<number | null> {
  const sealedSeq = sql<number>`COALESCE((SELECT sealed_seq FROM audit_chain_heads WHERE team_id = ${teamId}), 0)`;
  // Both reads in one batch (one transaction): the entries are those after the head that was read.
  const [heads, rows] = await svc.db.batch([
    svc.db.select().from(auditChainHeads).where(eq(auditChainHeads.teamId, teamId)),
    svc.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.teamId, teamId), gt(auditEntries.seq, sealedSeq)))
      .orderBy(asc(auditEntries.seq))
      .limit(SEAL_BATCH),
  ]);
  const head = heads[0];
  const fromSeq = head?.sealedSeq ?? 0;
  let prev = head?.headHash ?? GENESIS_HASH;
  const sealed: Array<{ seq: number; hash: string }> = [];
  for (const row of rows) {
    // A hole in the tail (an entry removed before it was sealed) stops sealing there; verify reports it.
    if (row.seq !== fromSeq + sealed.length + 1) break;
    prev = await chainHash(prev, chainEntryOf(row));
    sealed.push({ seq: row.seq, hash: prev });
  }
  const last = sealed[sealed.length - 1];
  if (!last) return 0;

  const now = svc.clock.now();
  // The head moves only from the state this round read (so two sealers never fork the chain), and each
  // entry's hash is written only if the head now ends where this round ends.
  const headIsOurs = sql`EXISTS (SELECT 1 FROM audit_chain_heads WHERE team_id = ${teamId} AND sealed_seq = ${last.seq} AND head_hash = ${last.hash})`;
  const statements: Statement[] = [
    svc.db
      .insert(auditChainHeads)
      .values({ teamId, sealedSeq: 0, headHash: null, prunedThroughSeq: 0, prunedHash: null, updatedAt: now })
      .onConflictDoNothing(),
    svc.db
      .update(auditChainHeads)
      .set({ sealedSeq: last.seq, headHash: last.hash, updatedAt: now })
      .where(and(eq(auditChainHeads.teamId, teamId), eq(auditChainHeads.sealedSeq, fromSeq))),
    ...sealed.map((s) =>
      svc.db
        .update(auditEntries)
        .set({ hash: s.hash })
        .where(and(eq(auditEntries.teamId, teamId), eq(auditEntries.seq, s.seq), isNull(auditEntries.hash), headIsOurs)),
    ),
  ];
  const [first, ...rest] = statements;
  if (!first) return 0;
  const results = (await svc.db.batch([first, ...rest])) as Array<{ meta?: { changes?: number } }>;
  return (results[1]?.meta?.changes ?? 0) > 0 ? sealed.length : null;
}

/** Seals every entry of the team after its head; returns how many it sealed. */
export async function sealTeam(svc: Services, teamId: number): Promise<number> {
  let total = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const n = await sealRound(svc, teamId);
    if (n === 0) break;
    if (n !== null) total += n;
  }
  return total;
}

/**
 * The teams an audit statement of this batch wrote to, so commit() can seal them: auditStatement
 * (src/services/audit/record.ts) is an INSERT INTO audit_entries whose first three parameters are the
 * team. An entry whose team is a SQL expression (a team the same batch creates) is not recognised and
 * waits for the cron sweep.
 */
export function auditedTeams(statements: readonly Statement[]): number[] {
  const teams = new Set<number>();
  for (const s of statements) {
    if (!is(s, SQLiteRaw)) continue;
    const q = (s as SQLiteRaw<unknown>).getQuery();
    if (!q.sql.trimStart().startsWith("INSERT INTO audit_entries")) continue;
    const [team, again, third] = q.params;
    if (typeof team === "number" && Number.isSafeInteger(team) && team > 0 && again === team && third === team) teams.add(team);
  }
  return [...teams];
}

/** After a commit: seals the teams it wrote entries for. Never throws (the change is committed; the cron sweep seals what this missed). */
export async function sealAfterCommit(svc: Services, statements: readonly Statement[]): Promise<void> {
  for (const teamId of auditedTeams(statements)) {
    try {
      await sealTeam(svc, teamId);
    } catch (error) {
      console.error(JSON.stringify({ level: "error", msg: "audit seal failed; the cron sweep retries", teamId, error: String(error) }));
    }
  }
}

/** Teams per sweep; the rest wait a minute. */
const SWEEP_TEAMS = 200;

/** Cron: seals every team whose newest entry is after its head (one index seek per team: the primary key's MAX(seq)). */
export async function sweepUnsealed(svc: Services): Promise<{ teams: number; sealed: number }> {
  const rows = await svc.db.all<{ id: number }>(sql`SELECT t.id AS id FROM teams t
    WHERE (SELECT MAX(seq) FROM audit_entries e WHERE e.team_id = t.id)
        > COALESCE((SELECT sealed_seq FROM audit_chain_heads h WHERE h.team_id = t.id), 0)
    LIMIT ${SWEEP_TEAMS}`);
  let sealed = 0;
  for (const { id } of rows) sealed += await sealTeam(svc, id).catch(() => 0);
  return { teams: rows.length, sealed };
}
