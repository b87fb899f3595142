// The team's domains by id, paginated. Does I/O (D1).
import { asc, count, eq, sql } from "drizzle-orm";
import { domains } from "../../db/schema";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import type { Services } from "../../services";
import { domainView } from "./views";
import type { ServiceContext } from "../context";

export async function listDomains(svc: Services, ctx: ServiceContext, q: PaginationQuery) {
  const { teamId } = ctx;
  const offset = pageOffset(q);
  // One statement: the page and the team's total together (a window count is computed before LIMIT),
  // so a list costs one D1 query on the authenticated hot path (docs/decisions.md D55).
  const rows = await svc.db
    .select({ domain: domains, total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(domains)
    .where(eq(domains.teamId, teamId))
    .orderBy(asc(domains.id))
    .limit(q.per_page)
    .offset(offset);
  let total = rows[0]?.total ?? 0;
  // An empty page past the first says nothing about the total: only then is it counted apart.
  if (rows.length === 0 && offset > 0) {
    const [counted] = await svc.db.select({ n: count() }).from(domains).where(eq(domains.teamId, teamId));
    total = counted?.n ?? 0;
  }
  return { items: rows.map((r) => domainView(r.domain)), total };
}
