// Reading a team's audit log (docs/audit.md): entries newest first with filters and a cursor, the same
// filters exported oldest first as NDJSON, and the chain verified from its anchor. Owners and admins
// only: a read-only credential (a viewer, a read-only token or grant) gets 403 (docs/decisions.md D233).
import { and, asc, desc, eq, gt, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import { ChainVerifier, GENESIS_HASH } from "../../core/audit/chain";
import { type AUDIT_ACTOR_KINDS, type AUDIT_FACES, auditChainHeads, auditEntries } from "../../db/schema";
import { forbidden } from "../../lib/errors";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { chainEntryOf } from "./seal";

export interface AuditFilters {
  /** A member's address, "token <name> (<prefix>)", an agent's label, or an actor id ("42", "user:42"). */
  actor?: string;
  actor_kind?: (typeof AUDIT_ACTOR_KINDS)[number];
  face?: (typeof AUDIT_FACES)[number];
  /** One verb ("domain.create") or a family ("domain.*"). */
  verb?: string;
  target_type?: string;
  target_id?: string;
  from?: Date;
  to?: Date;
}

export interface AuditEntryView {
  seq: number;
  at: string;
  actor: { kind: (typeof AUDIT_ACTOR_KINDS)[number]; id: string; label: string };
  face: (typeof AUDIT_FACES)[number];
  verb: string;
  target: { type: string; id: string | null } | null;
  summary: string;
  ip: string | null;
  user_agent: string | null;
  /** The entry's chain hash; null until sealed (moments after it is written). */
  hash: string | null;
}

export interface AuditPage {
  rows: AuditEntryView[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_before: number | null;
}

/** Verbs are lowercase words joined by dots; a family ends in ".*". */
export const VERB_FILTER = /^[a-z_]+(\.[a-z_]+)*(\.\*)?$/;

/** The audit log is for owners and admins: a credential that may change things (D233). */
export function requireAuditReader(ctx: ServiceContext): void {
  if (ctx.scope !== "full") throw forbidden("Only owners and admins (or a full-access token) may read the audit log.");
}

type Row = typeof auditEntries.$inferSelect;

export const entryView = (r: Row): AuditEntryView => ({
  seq: r.seq,
  at: r.at.toISOString(),
  actor: { kind: r.actorKind, id: r.actorId, label: r.actorLabel },
  face: r.face,
  verb: r.verb,
  target: r.targetType === null ? null : { type: r.targetType, id: r.targetId },
  summary: r.summary,
  ip: r.ip,
  user_agent: r.userAgent,
  hash: r.hash,
});

function whereOf(teamId: number, f: AuditFilters): SQL | undefined {
  // A family ("sso.*") is an exact prefix: LIKE would read the "_" of "mta_sts_hosting." as any character.
  const family = f.verb?.endsWith(".*") ? f.verb.slice(0, -1) : null;
  const verb = family ? sql`substr(${auditEntries.verb}, 1, ${family.length}) = ${family}` : f.verb ? eq(auditEntries.verb, f.verb) : undefined;
  return and(
    eq(auditEntries.teamId, teamId),
    f.actor ? or(eq(auditEntries.actorLabel, f.actor), eq(auditEntries.actorId, f.actor)) : undefined,
    f.actor_kind ? eq(auditEntries.actorKind, f.actor_kind) : undefined,
    f.face ? eq(auditEntries.face, f.face) : undefined,
    verb,
    f.target_type ? eq(auditEntries.targetType, f.target_type) : undefined,
    f.target_id ? eq(auditEntries.targetId, f.target_id) : undefined,
    f.from ? gte(auditEntries.at, f.from) : undefined,
    f.to ? lte(auditEntries.at, f.to) : undefined,
  );
}

export async function listAuditEntries(svc: Services, ctx: ServiceContext, q: AuditFilters & { before?: number; limit?: number } = {}): Promise<AuditPage> {
  requireAuditReader(ctx);
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const rows = await svc.db
    .select()
    .from(auditEntries)
    .where(and(whereOf(ctx.teamId, q), q.before !== undefined ? lt(auditEntries.seq, q.before) : undefined))
    .orderBy(desc(auditEntries.seq))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return { rows: page.map(entryView), next_before: rows.length > limit ? (page[page.length - 1]?.seq ?? null) : null };
}

/** Rows per D1 read while exporting or verifying. */
const PAGE = 500;

/** Entries in ascending seq after `after`, page by page (an export or a verify never holds the whole log). */
async function* ascending(svc: Services, where: SQL | undefined, after: number): AsyncGenerator<Row[]> {
  let cursor = after;
  for (;;) {
    const rows = await svc.db
      .select()
      .from(auditEntries)
      .where(and(where, gt(auditEntries.seq, cursor)))
      .orderBy(asc(auditEntries.seq))
      .limit(PAGE);
    if (rows.length > 0) yield rows;
    const last = rows[rows.length - 1];
    if (rows.length < PAGE || !last) return;
    cursor = last.seq;
  }
}

/**
 * The filtered log oldest first as NDJSON (one entry view per line, RFC 8259 JSON each), streamed page by
 * page. The caller is checked before the stream is made, so a refusal is an ordinary 403.
 */
export function exportAuditEntries(svc: Services, ctx: ServiceContext, filters: AuditFilters = {}): ReadableStream<Uint8Array> {
  requireAuditReader(ctx);
  const pages = ascending(svc, whereOf(ctx.teamId, filters), 0);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await pages.next();
      if (next.done) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(next.value.map((r) => `${JSON.stringify(entryView(r))}\n`).join("")));
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
}

export interface AuditVerification {
  ok: boolean;
  /** Sealed entries recomputed and matched. */
  checked: number;
  /** Where verification started: entries up to anchor.seq were removed by retention; anchor.hash is the last one's. */
  anchor: { seq: number; hash: string };
  head: { sealed_seq: number; hash: string };
  /** Entries written after the head and not sealed yet. */
  unsealed: number;
  problem: { seq: number; reason: "altered" | "gap" | "unsealed_inside" | "head_mismatch"; message: string } | null;
}

/** Recomputes the team's chain from its anchor to its head (the tail after the head is counted, not hashed). */
export async function verifyAuditChain(svc: Services, ctx: ServiceContext): Promise<AuditVerification> {
  requireAuditReader(ctx);
  const head = await svc.db.query.auditChainHeads.findFirst({ where: eq(auditChainHeads.teamId, ctx.teamId) });
  const anchor = { seq: head?.prunedThroughSeq ?? 0, hash: head?.prunedHash ?? GENESIS_HASH };
  const chainHead = { sealedSeq: head?.sealedSeq ?? 0, headHash: head?.headHash ?? GENESIS_HASH };
  const verifier = new ChainVerifier(anchor, chainHead);
  for await (const rows of ascending(svc, eq(auditEntries.teamId, ctx.teamId), anchor.seq)) {
    const going = await verifier.push(rows.map((r) => ({ ...chainEntryOf(r), hash: r.hash })));
    if (!going) break;
  }
  const report = verifier.finish();
  return {
    ok: report.ok,
    checked: report.checked,
    anchor,
    head: { sealed_seq: chainHead.sealedSeq, hash: chainHead.headHash },
    unsealed: report.unsealed,
    problem: report.problem,
  };
}
