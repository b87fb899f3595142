// Sums parsed records into bounded per-day outcome rows and DKIM selector evidence. Pure, no I/O.
import { apportion, daysCovered, dayOf } from "./spread";
import type { AggregateRow, DkimAuthResult, ReportRecord, ReportTotals, SelectorEvidence, SpfAuthResult } from "./types";

export interface AggregateOptions {
  /** Distinct outcome keys kept (memory bound for hostile reports); the rest is counted as overflow. */
  maxKeys?: number;
  /** Output rows (keys × days) above which a multi-day report is not spread but kept on one day. */
  maxRows?: number;
  maxSelectors?: number;
  maxIpsPerSelector?: number;
}

export interface Aggregated {
  rows: AggregateRow[];
  selectors: SelectorEvidence[];
  totals: ReportTotals;
  warnings: string[];
}

/** Whether DKIM d= and the From domain are equal or one is a subdomain of the other (no PSL here). */
const related = (d: string, from: string): boolean => d === from || under(from, d) || under(d, from);
/** Whether `name` ends with "." + `parent` (compared in place: this runs once per record). */
const under = (name: string, parent: string): boolean =>
  name.length > parent.length && name.endsWith(parent) && name.charCodeAt(name.length - parent.length - 1) === 0x2e;

/** Whether two rows have the same key: every field but day and messages. */
function sameKey(x: AggregateRow, y: AggregateRow): boolean {
  return (
    x.headerFrom === y.headerFrom &&
    x.envelopeFrom === y.envelopeFrom &&
    x.disposition === y.disposition &&
    x.dmarcDkim === y.dmarcDkim &&
    x.dmarcSpf === y.dmarcSpf &&
    x.overrideReason === y.overrideReason &&
    x.dkimDomain === y.dkimDomain &&
    x.dkimSelector === y.dkimSelector &&
    x.dkimResult === y.dkimResult &&
    x.spfDomain === y.spfDomain &&
    x.spfResult === y.spfResult
  );
}

/**
 * The DKIM signature a row is keyed by when a record carries several: a passing signature
 * related to the From domain, else any passing one, else the first. policy_evaluated/dkim stays
 * the authoritative DMARC outcome; every signature still reaches the selector evidence.
 */
export function primaryDkim(r: ReportRecord): DkimAuthResult | null {
  let firstPass: DkimAuthResult | null = null;
  for (const d of r.dkimResults) {
    if (d.result !== "pass") continue;
    if (related(d.domain, r.headerFrom)) return d;
    firstPass ??= d;
  }
  return firstPass ?? r.dkimResults[0] ?? null;
}

/** The SPF result for MAIL FROM (RFC 7208 §2.4) when scopes are given, else the first one. */
export function primarySpf(r: ReportRecord): SpfAuthResult | null {
  for (const s of r.spfResults) if (s.scope === "mfrom") return s;
  return r.spfResults[0] ?? null;
}

export class Aggregator {
  // Rows by source address (one row, or several when one address has several outcomes), their
  // messages summed so far, and in order of first appearance: no composite key string is built
  // per record. A single-day report hands these rows out as they are (day set).
  private readonly byIp = new Map<string, AggregateRow | AggregateRow[]>();
  private readonly order: AggregateRow[] = [];
  private readonly sel = new Map<string, SelectorEvidence>();
  private readonly totals: ReportTotals = { records: 0, messages: 0, overflowRecords: 0, overflowMessages: 0 };
  private selectorOverflow = 0;
  private readonly maxKeys: number;
  private readonly maxRows: number;
  private readonly maxSelectors: number;
  private readonly maxIps: number;

  constructor(opts: AggregateOptions = {}) {
    // A real report's records are already distinct (ip, outcome) tuples, so the cap matches the
    // largest report we accept (100,000 records) rather than losing half of a legitimate one.
    this.maxKeys = opts.maxKeys ?? 100_000;
    this.maxRows = opts.maxRows ?? 200_000;
    this.maxSelectors = opts.maxSelectors ?? 10_000;
    this.maxIps = opts.maxIpsPerSelector ?? 20;
  }

  add(r: ReportRecord): void {
    this.totals.records++;
    this.totals.messages += r.count;
    const dk = primaryDkim(r);
    const sp = primarySpf(r);
    const row: AggregateRow = {
      day: "",
      sourceIp: r.sourceIp,
      headerFrom: r.headerFrom,
      envelopeFrom: r.envelopeFrom,
      disposition: r.disposition,
      dmarcDkim: r.dkim,
      dmarcSpf: r.spf,
      overrideReason: r.reasons[0]?.type ?? null,
      dkimDomain: dk?.domain ?? null,
      dkimSelector: dk?.selector ?? null,
      dkimResult: dk?.result ?? null,
      spfDomain: sp?.domain ?? null,
      spfResult: sp?.result ?? null,
      messages: r.count,
    };
    const there = this.byIp.get(r.sourceIp);
    let hit: AggregateRow | undefined;
    if (Array.isArray(there)) hit = there.find((x) => sameKey(x, row));
    else if (there !== undefined && sameKey(there, row)) hit = there;
    if (hit !== undefined) hit.messages += r.count;
    else if (this.order.length < this.maxKeys) {
      this.order.push(row);
      if (there === undefined) this.byIp.set(r.sourceIp, row);
      else if (Array.isArray(there)) there.push(row);
      else this.byIp.set(r.sourceIp, [there, row]);
    } else {
      this.totals.overflowRecords++;
      this.totals.overflowMessages += r.count;
    }
    for (const d of r.dkimResults) this.evidence(d, r);
  }

  private evidence(d: DkimAuthResult, r: ReportRecord): void {
    if (d.selector === null || d.domain === "") return;
    const id = `${d.domain}\u0000${d.selector}`;
    let e = this.sel.get(id);
    if (e === undefined) {
      if (this.sel.size >= this.maxSelectors) return void this.selectorOverflow++;
      e = { domain: d.domain, selector: d.selector, messages: 0, pass: 0, fail: 0, sourceIps: [], sourceIpsTruncated: false };
      this.sel.set(id, e);
    }
    e.messages += r.count;
    if (d.result === "pass") e.pass += r.count;
    else e.fail += r.count;
    if (!e.sourceIps.includes(r.sourceIp)) {
      if (e.sourceIps.length < this.maxIps) e.sourceIps.push(r.sourceIp);
      else e.sourceIpsTruncated = true;
    }
  }

  /** Rows per UTC day of [begin, end); each key's messages are apportioned exactly (spread.ts). */
  finish(begin: number, end: number): Aggregated {
    const warnings: string[] = [];
    let { days, spread } = daysCovered(begin, end);
    if (spread && days.length * this.order.length > this.maxRows) {
      warnings.push(`${days.length}-day report with ${this.order.length} rows kept on one day (row cap)`);
      days = [{ day: dayOf(Math.floor((begin + end) / 2)), seconds: 1 }];
    } else if (!spread && end - begin > 31 * 86_400) {
      warnings.push("date_range longer than 31 days: kept on its middle day");
    }
    const weights = days.map((d) => d.seconds);
    const rows: AggregateRow[] = [];
    const only = days.length === 1 ? days[0]?.day : undefined;
    for (const row of this.order) {
      if (only !== undefined) {
        row.day = only;
        rows.push(row);
        continue;
      }
      const parts = apportion(row.messages, weights);
      days.forEach((d, i) => {
        const m = parts[i] ?? 0;
        if (m > 0) rows.push({ ...row, day: d.day, messages: m });
      });
    }
    if (this.totals.overflowRecords > 0) {
      warnings.push(`${this.totals.overflowRecords} records beyond ${this.maxKeys} distinct rows were only counted`);
    }
    if (this.selectorOverflow > 0) warnings.push(`${this.selectorOverflow} DKIM results beyond ${this.maxSelectors} selectors ignored`);
    return { rows, selectors: [...this.sel.values()], totals: { ...this.totals }, warnings };
  }
}
