// Writing an audit entry (docs/audit.md): a statement to put in the SAME D1 batch as the change it
// records, so a change without its entry cannot exist. The entry's seq is taken inside that batch
// (one more than the team's highest, or than the retention anchor when every entry was pruned; the batch is one transaction, so two writers cannot take the same seq).
// The hash chain is added after the batch by the sealer (src/services/audit/seal.ts).
import { is, sql } from "drizzle-orm";
import { SQLiteRaw } from "drizzle-orm/sqlite-core/query-builders/raw";
import type { Services } from "../../services";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../context";

export interface AuditInput {
  /** "domain.create", "token.revoke", "sign_in"... (docs/audit.md lists every verb). */
  verb: string;
  target?: { type: string; id: string | number } | null;
  /** What changed, in a sentence or a few key=value pairs; never a secret (no tokens, keys, URLs with credentials). */
  summary: string;
}

/** commit.ts's Statement, named here: commit.ts imports the sealer from this folder, so no import back (no folder loop). */
type Statement = BatchItem<"sqlite">;

const SUMMARY_MAX = 500;
const AGENT_MAX = 300;

/** The actor kind the audit log shows, from the service context's actor. */
function actorKind(ctx: ServiceContext): "member" | "token" | "agent" | "operator" | "system" {
  if (ctx.origin?.face === "operator") return "operator";
  switch (ctx.actor.kind) {
    case "session":
      return "member";
    case "token":
      return "token";
    case "agent":
      return "agent";
    default:
      return "system";
  }
}

/**
 * drizzle's D1 batch binds a raw statement (db.run, db.all) through a prepared `stmt` that it never sets
 * (drizzle-orm 0.45: "Cannot read properties of undefined (reading 'bind')"), so an entry, or a raw
 * INSERT ... SELECT, could not join a batch; this prepares it. The statement stays what it was (the sealer
 * still recognises an entry).
 */
export function batchable<T extends Statement>(svc: Services, statement: T): T {
  const raw = statement as unknown as { getQuery(): { sql: string }; stmt?: D1PreparedStatement };
  if (is(statement, SQLiteRaw) && raw.stmt === undefined) raw.stmt = svc.db.$client.prepare(raw.getQuery().sql);
  return statement;
}

/** One audit entry as a batchable statement. */
export function auditStatement(svc: Services, ctx: ServiceContext, input: AuditInput, at: Date = new Date()): Statement {
  const origin = ctx.origin ?? { face: "system" as const, label: "the service" };
  const summary = input.summary.length > SUMMARY_MAX ? `${input.summary.slice(0, SUMMARY_MAX - 1)}…` : input.summary;
  const ua = origin.userAgent ? origin.userAgent.slice(0, AGENT_MAX) : null;
  return batchable(
    svc,
    svc.db.run(sql`INSERT INTO audit_entries
    (team_id, seq, at, actor_kind, actor_id, actor_label, face, verb, target_type, target_id, summary, ip, user_agent)
    SELECT ${ctx.teamId},
      MAX(COALESCE((SELECT MAX(seq) FROM audit_entries WHERE team_id = ${ctx.teamId}), 0),
          COALESCE((SELECT pruned_through_seq FROM audit_chain_heads WHERE team_id = ${ctx.teamId}), 0)) + 1,
      ${at.getTime()}, ${actorKind(ctx)}, ${ctx.actor.id}, ${origin.label},
      ${origin.face}, ${input.verb}, ${input.target?.type ?? null}, ${input.target ? String(input.target.id) : null},
      ${summary}, ${origin.ip ?? null}, ${ua}`),
  );
}
