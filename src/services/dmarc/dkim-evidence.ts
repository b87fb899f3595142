// DKIM selectors seen in a report's auth_results bump last_report_at, and a new one whose key DNS
// confirms becomes an inventory row (source "dmarc", status pending until the next check looks at it).
import type { BatchItem } from "drizzle-orm/batch";
import { and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { checkSelector, isValidSelector } from "../../core/dkim";
import type { ParsedReport } from "../../core/reports";
import { dkimSelectors } from "../../db/schema";
import type { Services } from "../../services";

/** Bounded statements per report: a hostile report may list thousands of made-up selectors. */
export const MAX_SELECTORS_PER_REPORT = 50;

/**
 * Only signatures whose d= is the monitored domain itself: the inventory checks
 * <selector>._domainkey.<domain> (RFC 6376 §3.6.2.1), so a selector of a subdomain or of a
 * third party (an ESP's own d=) would be looked up at the wrong name. Those stay in the report rows.
 */
export function reportedSelectors(domain: string, parsed: ParsedReport) {
  const d = domain.toLowerCase();
  return parsed.selectors
    .filter((s) => s.domain.toLowerCase().replace(/\.$/, "") === d && isValidSelector(s.selector))
    .sort((a, b) => b.messages - a.messages)
    .slice(0, MAX_SELECTORS_PER_REPORT);
}

/** Learned (source "dmarc") selectors a domain may hold: a forged report cannot flood the inventory. */
export const MAX_LEARNED_SELECTORS = 20;
/** New selectors looked up in DNS per report before they are learned. */
export const MAX_LEARN_LOOKUPS = 5;

/**
 * Statements for the completing batch: selectors already in the inventory get last_report_at; a new one
 * is learned only when DNS answers with a key at <selector>._domainkey.<domain> (a lookup that fails is
 * unknown: not learned this time), at most MAX_LEARN_LOOKUPS per report and MAX_LEARNED_SELECTORS per
 * domain (the cap is checked inside the insert). Does I/O: D1 read, DNS.
 */
export async function selectorStatements(svc: Services, target: { id: number; name: string }, parsed: ParsedReport, now: Date): Promise<BatchItem<"sqlite">[]> {
  const db = svc.db;
  // The report's end date: when the selector was last seen signing, whatever order reports arrive in.
  const seen = new Date(Math.min(parsed.metadata.end * 1000, now.getTime()));
  const reported = reportedSelectors(target.name, parsed).map((s) => s.selector.toLowerCase());
  if (reported.length === 0) return [];
  const known = new Set(
    (
      await db
        .select({ selector: dkimSelectors.selector })
        .from(dkimSelectors)
        .where(and(eq(dkimSelectors.domainId, target.id), inArray(dkimSelectors.selector, reported)))
    ).map((r) => r.selector),
  );
  const bump = reported
    .filter((s) => known.has(s))
    .map((s) =>
      db
        .update(dkimSelectors)
        .set({ lastReportAt: sql`max(coalesce(${dkimSelectors.lastReportAt}, 0), ${seen.getTime()})` })
        .where(and(eq(dkimSelectors.domainId, target.id), eq(dkimSelectors.selector, s))),
    );
  const fresh = reported.filter((s) => !known.has(s)).slice(0, MAX_LEARN_LOOKUPS);
  const resolver = svc.createResolver();
  const entries = await Promise.all(fresh.map(async (s) => ({ s, e: await checkSelector(target.name, s, resolver) })));
  const learn = entries
    .filter(({ e }) => e.record !== null && (e.status === "active" || e.status === "revoked" || e.status === "invalid"))
    .map(({ s }) => {
      const cols = Object.keys(getTableColumns(dkimSelectors));
      const provided: Record<string, unknown> = {
        domainId: target.id,
        selector: s,
        source: "dmarc",
        status: "pending",
        health: "warning",
        rotations: 0,
        lastReportAt: seen.getTime(),
        createdAt: now.getTime(),
      };
      const values = sql.join(
        cols.map((k) => (k in provided ? sql`${provided[k]}` : sql`NULL`)),
        sql`, `,
      );
      return db
        .insert(dkimSelectors)
        .select(sql`SELECT ${values}
      WHERE (SELECT COUNT(*) FROM dkim_selectors WHERE domain_id = ${target.id} AND source = 'dmarc') < ${MAX_LEARNED_SELECTORS}`)
        .onConflictDoNothing();
    });
  return [...bump, ...learn];
}
