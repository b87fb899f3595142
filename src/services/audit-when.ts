// The audit entry of a guarded change (docs/audit.md "Verbs", docs/decisions.md D238): the entry of
// auditStatement, written only when a SQL condition holds at its place in the batch, like an outbox
// event of buildConditionalEvent. Put it BEFORE a guarded UPDATE/DELETE with the same condition (or
// after an INSERT ... SELECT ... WHERE with `changes() > 0`): a change that did not happen leaves no
// entry. The target id may be a SQL expression too, for a row the same batch inserts (its id is not
// known before the batch). No I/O here.
import { SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Services } from "../services";
import { type AuditInput, auditStatement, batchable } from "./audit/record";

export { batchable };
import type { Statement } from "./commit";
import type { ServiceContext } from "./context";

export interface AuditGuard {
  /** The team as SQL, for a team the same batch creates (its entries then wait for the cron sweep's seal). */
  teamId?: SQL;
  /** The entry is written only when this holds (evaluated inside the batch, after the statements before it). */
  when?: SQL;
  /** The target's id as SQL (e.g. the id of the row inserted just before), instead of input.target.id. */
  targetId?: SQL;
}

/** auditStatement's INSERT ... SELECT <values> with `WHERE <when>` added and the target id replaced. */
export function auditWhen(svc: Services, ctx: ServiceContext, input: AuditInput, guard: AuditGuard): Statement {
  // Values no caller passes: they mark where the target id and the team sit among the statement's parameters.
  const targetMarker = `\u0000audit-target:${crypto.randomUUID()}`;
  const teamMarker = -Math.floor(1e9 + Math.random() * 1e9);
  const swaps = new Map<unknown, SQL>();
  if (guard.targetId && input.target) swaps.set(targetMarker, sql`CAST((${guard.targetId}) AS TEXT)`);
  if (guard.teamId) swaps.set(teamMarker, sql`(${guard.teamId})`);
  const base = auditStatement(
    svc,
    guard.teamId ? { ...ctx, teamId: teamMarker } : ctx,
    guard.targetId && input.target ? { ...input, target: { type: input.target.type, id: targetMarker } } : input,
    svc.clock.now(),
  ) as unknown as SQLWrapper;
  let body = base.getSQL();
  if (swaps.size > 0) {
    const chunks = body.queryChunks.map((c) => swaps.get(c) ?? c);
    if (!chunks.some((c, i) => c !== body.queryChunks[i])) throw new Error("auditWhen: the audit statement no longer takes the team or target as parameters");
    body = new SQL(chunks);
  }
  return batchable(svc, svc.db.run(guard.when ? sql`${body} WHERE ${guard.when}` : body));
}

/** An unguarded entry at the service clock's time (auditStatement's default is the wall clock). */
export const audit = (svc: Services, ctx: ServiceContext, input: AuditInput): Statement => auditStatement(svc, ctx, input, svc.clock.now());

/**
 * A URL as an audit summary may show it: the origin only, "…" for any path or query, which may carry a
 * secret (a Slack incoming webhook's path is its credential; receivers put tokens in query strings).
 */
export function urlForAudit(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname === "/" && u.search === "" ? u.origin : `${u.origin}/…`;
  } catch {
    return "(a URL)";
  }
}
