// Test-only reference (was src/core/reports/aggregate.ts): the aggregator before its speed-up, the differential test oracle.
import { apportion, daysCovered, dayOf } from "../../../src/core/reports/spread";
import type { AggregateRow, DkimAuthResult, ReportRecord, ReportTotals, SelectorEvidence, SpfAuthResult } from "../../../src/core/reports/types";

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

type RowKey = Omit<AggregateRow, "day" | "messages">;
const SEP = "\u0001";
const NULL = "\u0002";
const KEY_FIELDS: ReadonlyArray<keyof RowKey> = [
  "sourceIp",
  "headerFrom",
  "envelopeFrom",
  "disposition",
  "dmarcDkim",
  "dmarcSpf",
  "overrideReason",
  "dkimDomain",
  "dkimSelector",
  "dkimResult",
  "spfDomain",
  "spfResult",
];

/** Whether DKIM d= and the From domain are equal or one is a subdomain of the other (no PSL here). */
const related = (d: string, from: string): boolean => d === from || from.endsWith(`.${d}`) || d.endsWith(`.${from}`);

/**
 * The DKIM signature a row is keyed by when a record carries several: a passing signature
 * related to the From domain, else any passing one, else the first. policy_evaluated/dkim stays
 * the authoritative DMARC outcome; every signature still reaches the selector evidence.
 */
export function primaryDkim(r: ReportRecord): DkimAuthResult | null {
  const pass = r.dkimResults.filter((d) => d.result === "pass");
  return pass.find((d) => related(d.domain, r.headerFrom)) ?? pass[0] ?? r.dkimResults[0] ?? null;
}

/** The SPF result for MAIL FROM (RFC 7208 §2.4) when scopes are given, else the first one. */
export function primarySpf(r: ReportRecord): SpfAuthResult | null {
  return r.spfResults.find((s) => s.scope === "mfrom") ?? r.spfResults[0] ?? null;
}

export class Aggregator {
  // Key (the RowKey fields in KEY_FIELDS order, joined by U+0001, null as U+0002) → messages.
  // XML 1.0 forbids both characters, even as references, so the encoding is unambiguous. One
  // string per key instead of an object keeps 100k distinct keys around 20 MB.
  private readonly keys = new Map<string, number>();
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
    const key: RowKey = {
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
    };
    const id = KEY_FIELDS.map((f) => key[f] ?? NULL).join(SEP);
    const hit = this.keys.get(id);
    if (hit !== undefined) this.keys.set(id, hit + r.count);
    else if (this.keys.size < this.maxKeys) this.keys.set(id, r.count);
    else {
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
    if (spread && days.length * this.keys.size > this.maxRows) {
      warnings.push(`${days.length}-day report with ${this.keys.size} rows kept on one day (row cap)`);
      days = [{ day: dayOf(Math.floor((begin + end) / 2)), seconds: 1 }];
    } else if (!spread && end - begin > 31 * 86_400) {
      warnings.push("date_range longer than 31 days: kept on its middle day");
    }
    const weights = days.map((d) => d.seconds);
    const rows: AggregateRow[] = [];
    for (const [id, messages] of this.keys) {
      const values = id.split(SEP);
      const key = Object.fromEntries(KEY_FIELDS.map((f, i) => [f, values[i] === NULL ? null : values[i]])) as RowKey;
      const parts = apportion(messages, weights);
      days.forEach((d, i) => {
        const m = parts[i] ?? 0;
        if (m > 0 || days.length === 1) rows.push({ day: d.day, ...key, messages: m });
      });
    }
    if (this.totals.overflowRecords > 0) {
      warnings.push(`${this.totals.overflowRecords} records beyond ${this.maxKeys} distinct rows were only counted`);
    }
    if (this.selectorOverflow > 0) warnings.push(`${this.selectorOverflow} DKIM results beyond ${this.maxSelectors} selectors ignored`);
    return { rows, selectors: [...this.sel.values()], totals: { ...this.totals }, warnings };
  }
}
