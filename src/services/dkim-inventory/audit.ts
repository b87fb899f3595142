// Daily DKIM key audit: dkim.key.stale for active keys published 180 days or longer (docs/decisions.md D18),
// at most once per 30 days per key, paged by primary key and bounded per run. I/O: D1, queue nudges.
import { and, asc, eq, gt, isNotNull, isNull, lt, lte, or } from "drizzle-orm";
import { STALE_KEY_DAYS } from "../../core/dkim";
import { dkimSelectors, domains } from "../../db/schema";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { commitAll } from "../commit";
import { buildEvent } from "../events/emit";

export const RENOTIFY_DAYS = 30;
const PAGE = 100;
const MAX_PER_RUN = 2000;

export interface AuditResult {
  notified: number;
  /** True when the per-run cap stopped the audit; the rest is picked up by the next run. */
  capped: boolean;
}

export async function runDkimAudit(svc: Services, opts: { maxPerRun?: number } = {}): Promise<AuditResult> {
  const now = svc.clock.now();
  const staleBefore = new Date(now.getTime() - STALE_KEY_DAYS * DAY_MS);
  const renotifyBefore = new Date(now.getTime() - RENOTIFY_DAYS * DAY_MS);
  const max = opts.maxPerRun ?? MAX_PER_RUN;
  const due = and(
    eq(dkimSelectors.status, "active"),
    isNotNull(dkimSelectors.keyFingerprint),
    lte(dkimSelectors.keyFirstSeenAt, staleBefore),
    or(isNull(dkimSelectors.staleNotifiedAt), lt(dkimSelectors.staleNotifiedAt, renotifyBefore)),
  );
  let cursor = 0;
  let notified = 0;
  while (notified < max) {
    const rows = await svc.db
      .select({
        id: dkimSelectors.id,
        selector: dkimSelectors.selector,
        fingerprint: dkimSelectors.keyFingerprint,
        firstSeen: dkimSelectors.keyFirstSeenAt,
        domainId: domains.id,
        name: domains.name,
        teamId: domains.teamId,
      })
      .from(dkimSelectors)
      .innerJoin(domains, eq(domains.id, dkimSelectors.domainId))
      .where(and(gt(dkimSelectors.id, cursor), due))
      .orderBy(asc(dkimSelectors.id))
      .limit(Math.min(PAGE, max - notified));
    if (rows.length === 0) break;
    cursor = rows[rows.length - 1]?.id ?? cursor;
    const built = rows.map((r) => {
      const ageDays = r.firstSeen ? Math.floor((now.getTime() - r.firstSeen.getTime()) / DAY_MS) : null;
      return buildEvent(
        svc.db,
        {
          type: "dkim.key.stale",
          teamId: r.teamId,
          domain: { id: r.domainId, name: r.name },
          data: {
            selector: r.selector,
            fingerprint: r.fingerprint,
            age_days: ageDays,
            first_seen_at: r.firstSeen?.toISOString() ?? null,
            threshold_days: STALE_KEY_DAYS,
          },
        },
        now,
      );
    });
    // Same batch: the event and the mark that it was sent (stale_notified_at).
    const marks = rows.map((r) => svc.db.update(dkimSelectors).set({ staleNotifiedAt: now }).where(eq(dkimSelectors.id, r.id)));
    await commitAll(
      svc,
      [...marks, ...built.map((b) => b.statement)],
      built.map((b) => b.id),
    );
    notified += rows.length;
    if (rows.length < PAGE) break;
  }
  return { notified, capped: notified >= max };
}
