// A domain's check history (score history) and its diffs, newest first, paginated, read from the domain's
// object once anything still in the D1 outbox is copied there (docs/decisions.md D134-D135). Does I/O
// (D1, the domain's object).
import { archiveChecks } from "./archive";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import { domainStore } from "../domains/domain-store";
import { getDomainInTeam } from "../domains/get-domain";
import type { ServiceContext } from "../context";

/** The team's domain's object, once the domain's checks left in the D1 outbox are copied into it. */
async function historyOf(svc: Services, ctx: ServiceContext, domainId: number) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  await archiveChecks(svc, domain);
  return domainStore(svc, domain);
}

export async function listChecks(svc: Services, ctx: ServiceContext, domainId: number, q: PaginationQuery) {
  const page = await (await historyOf(svc, ctx, domainId)).checkPage(q.per_page, pageOffset(q));
  const items = page.rows.map((r) => ({
    id: r.id,
    status: r.status as "completed" | "failed",
    trigger: r.trigger as "scheduled" | "manual" | "verify",
    score: r.score,
    grade: r.grade,
    dmarc_policy: r.dmarcPolicy,
    stale_parts: r.staleParts ?? [],
    queries: r.queries,
    duration_ms: r.durationMs,
    error: r.error,
    created_at: new Date(r.createdAt).toISOString(),
  }));
  return { items, total: page.total };
}

export async function listDiffs(svc: Services, ctx: ServiceContext, domainId: number, q: PaginationQuery) {
  const page = await (await historyOf(svc, ctx, domainId)).diffPage(q.per_page, pageOffset(q));
  const items = page.rows.map((r) => ({
    id: r.id,
    check_id: r.checkId,
    category: r.category,
    field: r.field,
    before: r.before,
    after: r.after,
    severity: r.severity,
    created_at: iso(new Date(r.createdAt)),
  }));
  return { items, total: page.total };
}
