// DKIM selectors seen in a report's auth_results become inventory rows (source "dmarc", status
// pending) and bump last_report_at. Builds statements for the completing batch; no I/O here.
import type { BatchItem } from "drizzle-orm/batch";
import { sql } from "drizzle-orm";
import { isValidSelector } from "../../core/dkim";
import type { ParsedReport } from "../../core/reports";
import type { Db } from "../../db/client";
import { dkimSelectors } from "../../db/schema";

/** Bounded statements per report: a hostile report may list thousands of made-up selectors. */
export const MAX_SELECTORS_PER_REPORT = 50;

/**
 * Only signatures whose d= is the monitored domain itself: the inventory checks
 * <selector>._domainkey.<domain> (RFC 6376 §3.6.2.1), so a selector of a subdomain or of a
 * third party (an ESP's own d=) would be looked up at the wrong name. Those stay in dmarc_rows.
 */
export function reportedSelectors(domain: string, parsed: ParsedReport) {
  const d = domain.toLowerCase();
  return parsed.selectors
    .filter((s) => s.domain.toLowerCase().replace(/\.$/, "") === d && isValidSelector(s.selector))
    .sort((a, b) => b.messages - a.messages)
    .slice(0, MAX_SELECTORS_PER_REPORT);
}

export function selectorStatements(db: Db, target: { id: number; name: string }, parsed: ParsedReport, now: Date): BatchItem<"sqlite">[] {
  // The report's end date: when the selector was last seen signing, whatever order reports arrive in.
  const seen = new Date(Math.min(parsed.metadata.end * 1000, now.getTime()));
  return reportedSelectors(target.name, parsed).map((s) =>
    db.insert(dkimSelectors)
      .values({ domainId: target.id, selector: s.selector.toLowerCase(), source: "dmarc", status: "pending", lastReportAt: seen, createdAt: now })
      .onConflictDoUpdate({
        target: [dkimSelectors.domainId, dkimSelectors.selector],
        set: { lastReportAt: sql`max(coalesce(${dkimSelectors.lastReportAt}, 0), ${seen.getTime()})` },
      }),
  );
}
