// Read queries behind the DKIM views: selectors, key history and DMARC-report evidence of one domain
// (already checked to be in the caller's team). I/O: D1 reads, each bounded and by index; the report
// evidence from the domain's report object (docs/decisions.md D121).
import { and, asc, gt, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { dkimKeys, dkimSelectors } from "../../db/schema";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { domainStore } from "../domains/domain-store";
import type { KeyRow, ReportTotals } from "./present";
import type { SelectorRow } from "./transition";

export const MAX_SELECTORS_SHOWN = 200;
const MAX_KEYS_SHOWN = 1000;
const MAX_SOURCES = 50;
const MAX_SIGNERS = 100;

/** First UTC day (YYYY-MM-DD) of a window of `days` calendar days ending today. */
export const windowStartDay = (now: Date, days: number): string => new Date(now.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10);

/** Every selector of a domain, read a page at a time (no fixed window that a flood of rows could fill). */
export async function listSelectors(db: Db, domainId: number): Promise<SelectorRow[]> {
  const out: SelectorRow[] = [];
  for (let after = 0; ; ) {
    const page = await db
      .select()
      .from(dkimSelectors)
      .where(and(eq(dkimSelectors.domainId, domainId), gt(dkimSelectors.id, after)))
      .orderBy(asc(dkimSelectors.id))
      .limit(MAX_SELECTORS_SHOWN);
    out.push(...page);
    if (page.length < MAX_SELECTORS_SHOWN) break;
    after = page[page.length - 1]?.id ?? after;
  }
  return out.sort((a, b) => a.selector.localeCompare(b.selector));
}

export async function findSelector(db: Db, domainId: number, selector: string): Promise<SelectorRow | null> {
  const [row] = await db
    .select()
    .from(dkimSelectors)
    .where(and(eq(dkimSelectors.domainId, domainId), eq(dkimSelectors.selector, selector.toLowerCase())))
    .limit(1);
  return row ?? null;
}

/** Key history of the given selectors, newest first, grouped by selector id. */
export async function keyHistory(db: Db, selectorIds: number[]): Promise<Map<number, KeyRow[]>> {
  const out = new Map<number, KeyRow[]>();
  if (selectorIds.length === 0) return out;
  const rows = await db.select().from(dkimKeys).where(inArray(dkimKeys.selectorId, selectorIds)).orderBy(desc(dkimKeys.firstSeenAt)).limit(MAX_KEYS_SHOWN);
  for (const k of rows) out.set(k.selectorId, [...(out.get(k.selectorId) ?? []), k]);
  return out;
}

const totals = (messages: number | null, pass: number | null, sources: string | null): ReportTotals => {
  const m = Number(messages ?? 0);
  const p = Number(pass ?? 0);
  return { messages: m, pass: p, fail: m - p, sources: (sources ? sources.split(",") : []).slice(0, MAX_SOURCES) };
};

/** DMARC-report evidence per selector of d=<domain> within the window (the object's rows by day). */
export async function reportsBySelector(
  svc: Pick<Services, "env">,
  domainId: number,
  domainName: string,
  fromDay: string,
  selector?: string,
): Promise<Map<string, ReportTotals>> {
  const rows = await domainStore(svc, { id: domainId }).selectorEvidence(domainName, fromDay, MAX_SELECTORS_SHOWN, selector);
  return new Map(rows.map((r) => [r.key, totals(r.messages, r.pass, r.sources)]));
}

export interface Signer extends ReportTotals {
  domain: string;
  aligned: boolean;
}

/** DKIM signing domains seen in DMARC reports for this domain, most messages first. */
export async function signers(svc: Pick<Services, "env">, domainId: number, domainName: string, fromDay: string): Promise<Signer[]> {
  const rows = await domainStore(svc, { id: domainId }).signers(fromDay, MAX_SIGNERS);
  return rows.map((r) => ({ domain: r.key, aligned: relaxedAligned(r.key, domainName), ...totals(r.messages, r.pass, r.sources) }));
}

/**
 * Relaxed alignment approximated by names (RFC 7489 §3.1.1 compares organizational domains, which
 * needs DNS): equal, or one is a subdomain of the other.
 */
export function relaxedAligned(dkimDomain: string, domain: string): boolean {
  const a = dkimDomain.toLowerCase().replace(/\.$/, "");
  const b = domain.toLowerCase().replace(/\.$/, "");
  return a === b || a.endsWith(`.${b}`) || (b.endsWith(`.${a}`) && a.includes("."));
}
