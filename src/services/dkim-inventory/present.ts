// Shapes stored selectors and keys into the API's DkimSelector / DkimKey views. No I/O here.
import { ageBucket, type AgeBucket } from "../../core/dkim";
import type { Finding } from "../../core/types";
import type { dkimKeys } from "../../db/schema";
import { DAY_MS, iso } from "../../lib/time";
import { issuesOf, type SelectorRow } from "./transition";

export type KeyRow = typeof dkimKeys.$inferSelect;

export interface ReportTotals {
  messages: number;
  pass: number;
  fail: number;
  sources: string[];
}

export interface KeyView {
  type: string;
  bits: number | null;
  fingerprint: string;
  testing: boolean;
  first_seen_at: string | null;
  age_days: number | null;
  age_bucket: AgeBucket | null;
}

export interface HistoryEntry {
  fingerprint: string;
  type: string;
  bits: number | null;
  record: string;
  first_seen_at: string | null;
  last_seen_at: string | null;
  retired_at: string | null;
  retired_reason: "rotated" | "revoked" | "removed" | null;
}

export interface SelectorView {
  selector: string;
  host: string;
  status: SelectorRow["status"];
  health: SelectorRow["health"];
  source: SelectorRow["source"];
  provider: string | null;
  delegated_to: string | null;
  key: KeyView | null;
  record: string | null;
  rotations: number;
  issues: Finding[];
  first_seen_at: string | null;
  last_seen_at: string | null;
  missing_since: string | null;
  last_report_at: string | null;
  reports: ReportTotals | null;
  history: HistoryEntry[];
}

/** Whole days since `since`, never negative; null without a date. */
export const ageDays = (since: Date | null, now: Date): number | null => (since ? Math.max(0, Math.floor((now.getTime() - since.getTime()) / DAY_MS)) : null);

export function keyView(row: SelectorRow, now: Date): KeyView | null {
  if (!row.keyFingerprint) return null;
  const age = ageDays(row.keyFirstSeenAt, now);
  return {
    type: row.keyType ?? "rsa",
    bits: row.keyBits,
    fingerprint: row.keyFingerprint,
    testing: row.keyTesting ?? false,
    first_seen_at: iso(row.keyFirstSeenAt),
    age_days: age,
    age_bucket: age === null ? null : ageBucket(age),
  };
}

export const historyEntry = (k: KeyRow): HistoryEntry => ({
  fingerprint: k.fingerprint,
  type: k.type,
  bits: k.bits,
  record: k.record,
  first_seen_at: iso(k.firstSeenAt),
  last_seen_at: iso(k.lastSeenAt),
  retired_at: iso(k.retiredAt),
  retired_reason: k.retiredReason ?? null,
});

export function selectorView(row: SelectorRow, domainName: string, now: Date, extra: { history?: KeyRow[]; reports?: ReportTotals | null } = {}): SelectorView {
  return {
    selector: row.selector,
    host: `${row.selector}._domainkey.${domainName}`,
    status: row.status,
    health: row.health,
    source: row.source,
    provider: row.provider,
    delegated_to: row.delegatedTo,
    key: keyView(row, now),
    record: row.record,
    rotations: row.rotations,
    issues: issuesOf(row),
    first_seen_at: iso(row.firstSeenAt),
    last_seen_at: iso(row.lastSeenAt),
    missing_since: iso(row.missingSince),
    last_report_at: iso(row.lastReportAt),
    reports: extra.reports ?? null,
    history: (extra.history ?? []).map(historyEntry),
  };
}
