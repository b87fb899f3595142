// A domain's check history (score history) and its diffs, newest first, paginated. Does I/O (D1).
import { count, desc, eq } from "drizzle-orm";
import { checks, diffs } from "../../db/schema";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import { getDomainInTeam } from "./get-domain";
import type { ServiceContext } from "../context";

export async function listChecks(svc: Services, ctx: ServiceContext, domainId: number, q: PaginationQuery) {
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const where = eq(checks.domainId, domain.id);
  const [rows, total] = await svc.db.batch([
    svc.db
      .select({
        id: checks.id,
        status: checks.status,
        trigger: checks.trigger,
        score: checks.score,
        grade: checks.grade,
        dmarcPolicy: checks.dmarcPolicy,
        staleParts: checks.staleParts,
        queries: checks.queries,
        durationMs: checks.durationMs,
        error: checks.error,
        createdAt: checks.createdAt,
      })
      .from(checks)
      .where(where)
      .orderBy(desc(checks.createdAt), desc(checks.id))
      .limit(q.per_page)
      .offset(pageOffset(q)),
    svc.db.select({ n: count() }).from(checks).where(where),
  ]);
  const items = rows.map((r) => ({
    id: r.id,
    status: r.status,
    trigger: r.trigger,
    score: r.score,
    grade: r.grade,
    dmarc_policy: r.dmarcPolicy,
    stale_parts: r.staleParts ?? [],
    queries: r.queries,
    duration_ms: r.durationMs,
    error: r.error,
    created_at: iso(r.createdAt),
  }));
  return { items, total: total[0]?.n ?? 0 };
}

export async function listDiffs(svc: Services, ctx: ServiceContext, domainId: number, q: PaginationQuery) {
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const where = eq(diffs.domainId, domain.id);
  const [rows, total] = await svc.db.batch([
    svc.db.select().from(diffs).where(where).orderBy(desc(diffs.createdAt), desc(diffs.id)).limit(q.per_page).offset(pageOffset(q)),
    svc.db.select({ n: count() }).from(diffs).where(where),
  ]);
  const items = rows.map((r) => ({
    id: r.id,
    check_id: r.checkId,
    category: r.category,
    field: r.field,
    before: r.before,
    after: r.after,
    severity: r.severity,
    created_at: iso(r.createdAt),
  }));
  return { items, total: total[0]?.n ?? 0 };
}
