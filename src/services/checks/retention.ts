// Check history retention (run daily by cron). Checks (and their diffs, by cascade) older than 400 days are
// deleted; the full posture JSON of checks older than 30 days is dropped except the domain's latest. Does I/O (D1).
import { and, asc, eq, gt, isNotNull, lt, ne } from "drizzle-orm";
import { checks, domains } from "../../db/schema";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { commitAll, type Statement } from "../commit";

export const HISTORY_DAYS = 400;
export const POSTURE_DAYS = 30;
const DOMAINS_PER_BATCH = 50;

/** Per domain, so every statement walks checks_domain_created_idx (domain_id, created_at) instead of the whole table. */
export async function pruneChecks(svc: Services): Promise<{ domains: number }> {
  const now = svc.clock.now().getTime();
  const historyCutoff = new Date(now - HISTORY_DAYS * DAY_MS);
  const postureCutoff = new Date(now - POSTURE_DAYS * DAY_MS);
  let after = 0;
  let seen = 0;
  for (;;) {
    const page = await svc.db
      .select({ id: domains.id, last: domains.lastCheckId })
      .from(domains)
      .where(gt(domains.id, after))
      .orderBy(asc(domains.id))
      .limit(DOMAINS_PER_BATCH);
    if (page.length === 0) break;
    const statements: Statement[] = page.flatMap((d) => [
      svc.db.delete(checks).where(and(eq(checks.domainId, d.id), lt(checks.createdAt, historyCutoff))),
      svc.db
        .update(checks)
        .set({ posture: null })
        .where(and(eq(checks.domainId, d.id), lt(checks.createdAt, postureCutoff), isNotNull(checks.posture), d.last ? ne(checks.id, d.last) : undefined)),
    ]);
    await commitAll(svc, statements);
    seen += page.length;
    after = page[page.length - 1]?.id ?? after;
  }
  return { domains: seen };
}
