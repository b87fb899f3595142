// The team's domains by id, paginated. Does I/O (D1).
import { asc, count, eq } from "drizzle-orm";
import { domains } from "../../db/schema";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import type { Services } from "../../services";
import { domainView } from "./views";
import type { ServiceContext } from "../context";

export async function listDomains(svc: Services, ctx: ServiceContext, q: PaginationQuery) {
  const { teamId } = ctx;
  const [rows, total] = await svc.db.batch([
    svc.db.select().from(domains).where(eq(domains.teamId, teamId)).orderBy(asc(domains.id)).limit(q.per_page).offset(pageOffset(q)),
    svc.db.select({ n: count() }).from(domains).where(eq(domains.teamId, teamId)),
  ]);
  return { items: rows.map(domainView), total: total[0]?.n ?? 0 };
}
