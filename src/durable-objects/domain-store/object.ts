// One domain's data beyond its current state (docs/decisions.md D120, D134): a SQLite-backed Durable
// Object per domain holding DMARC report identities and aggregated rows, SMTP TLS reports, DMARC failure
// samples (D127) and the check history with its diffs (D134). Reached only through
// services/domains/domain-store.ts, for a domain already loaded (D121).
// Does I/O: its own SQLite storage (drizzle durable-sqlite, its own migrations) and its alarm.
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { sql } from "drizzle-orm";
import { REPORT_LIMITS } from "../../lib/plans";
import { num, type StoreDb } from "./db";
import * as history from "./checks";
import * as reads from "./dmarc-read";
import * as samples from "./failures";
import { ingestDmarc, markSummarised, replayOf, seenBefore } from "./dmarc-write";
import { maintain, type MaintenanceResult, nextAlarmAt } from "./maintenance";
import migrations from "./migrations";
import * as schema from "./schema";
import * as tls from "./tls";
import type { DmarcIngestInput, DmarcIngestResult, DmarcReplay, DmarcWindowQuery, Intake } from "./types";

/** Kept when no write ever told the object its plan: the longest plan retention (docs/limits.md). */
const DEFAULT_RETENTION_DAYS = Math.max(...Object.values(REPORT_LIMITS).map((l) => l.retention_days));

/**
 * How long a copy holds a report's summarising lease (docs/decisions.md D159): its D1 step (a few D1
 * reads, DNS lookups of at most 2.5 s each, one batch) ends well within it. An older lease is taken over,
 * so a step whose Worker died is completed by the next copy or by the sweep (D160, after a minute).
 */
export const SUMMARY_LEASE_MS = 30_000;

type ReportKind = "dmarc" | "tls";

export class DomainStore extends DurableObject {
  private readonly db: StoreDb;
  /**
   * Summarising leases by report (D159). In memory on purpose: the object is the one instance of its
   * domain, so two copies never both hold one; a restart (the whole process killed) frees them at once.
   */
  private readonly leases = new Map<string, number>();

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.db = drizzle(ctx.storage, { schema });
    // Every request waits for the object's schema to be current (migrations from empty on first use).
    void ctx.blockConcurrencyWhile(async () => {
      await migrate(this.db, migrations);
    });
  }

  /** One report in one transaction; answers the absolute totals of its days (D122). */
  async ingestDmarc(input: DmarcIngestInput): Promise<DmarcIngestResult> {
    const out = this.ctx.storage.transactionSync(() => ingestDmarc(this.db, this.ctx.storage.kv, input));
    await this.ensureAlarm(input.receivedAt);
    // Only the copy holding the lease runs the D1 step; a copy arriving while it runs is told so (the
    // totals are still answered: the legacy mover, which must finish its batch, replays with them).
    if (out.status !== "duplicate" && !input.summarised && !this.takeLease("dmarc", out.ref)) return { ...out, status: "summarising" };
    return out;
  }

  /** The worker's D1 batch for the report committed: a later copy is a plain duplicate. */
  markSummarised(ref: number, nowMs: number = Date.now()): void {
    markSummarised(this.db, ref, nowMs);
    this.leases.delete(`dmarc:${ref}`);
  }

  /** The lease holder's D1 step failed: the next copy may run it at once. */
  releaseSummary(kind: ReportKind, ref: number): void {
    this.leases.delete(`${kind}:${ref}`);
  }

  /**
   * The sweep's replay of a report stored but never summarised (D160), with its lease taken:
   * "summarising" while a copy holds the lease, "duplicate" once summarised, null if never stored.
   */
  replayDmarc(orgName: string, reportId: string): DmarcReplay | "duplicate" | "summarising" | null {
    const out = this.ctx.storage.transactionSync(() => replayOf(this.db, this.ctx.storage.kv, orgName, reportId));
    if (out === null || out === "duplicate") return out;
    return this.takeLease("dmarc", out.result.ref) ? out : "summarising";
  }

  /** Which of `ips` other reports of the domain already showed (the new-sender rule, D103). */
  seenIps(ref: number, ips: string[]): string[] {
    return seenBefore(this.db, ref, ips);
  }

  dmarcAnalytics(q: DmarcWindowQuery) {
    return reads.analytics(this.db, q);
  }

  dmarcSources(from: string, to: string, result: "pass" | "fail" | undefined, limit: number, offset: number): reads.SourceRow[] {
    return reads.sourceRows(this.db, from, to, result, limit, offset);
  }

  dmarcSourceCount(from: string, to: string, result: "pass" | "fail" | undefined): number {
    return reads.countSources(this.db, from, to, result);
  }

  dmarcReports(limit: number, offset: number) {
    return reads.listReports(this.db, limit, offset);
  }

  dmarcReport(id: number, limit: number, offset: number) {
    return reads.getReport(this.db, id, limit, offset);
  }

  intake(sinceMs: number, reporter?: { orgName: string; email: string | null }): Intake {
    return reads.intake(this.db, sinceMs, reporter);
  }

  sendingIps(fromDay: string, limit: number): string[] {
    return reads.alignedSendingIps(this.db, fromDay, limit);
  }

  selectorEvidence(domainName: string, fromDay: string, limit: number, selector?: string): reads.EvidenceRow[] {
    return reads.selectorEvidence(this.db, domainName, fromDay, limit, selector);
  }

  signers(fromDay: string, limit: number): reads.EvidenceRow[] {
    return reads.signers(this.db, fromDay, limit);
  }

  async ingestTls(input: tls.TlsIngestInput): Promise<tls.TlsIngestResult> {
    const out = this.ctx.storage.transactionSync(() => tls.ingestTls(this.db, this.ctx.storage.kv, input));
    await this.ensureAlarm(input.receivedAt);
    if (out.status !== "duplicate" && !input.summarised && !this.takeLease("tls", out.ref)) return { ...out, status: "summarising" };
    return out;
  }

  markTlsSummarised(ref: number, nowMs: number = Date.now()): void {
    tls.markTlsSummarised(this.db, ref, nowMs);
    this.leases.delete(`tls:${ref}`);
  }

  /** As replayDmarc, for a TLS report (D160). */
  replayTls(orgName: string, reportId: string): tls.TlsReplay | "duplicate" | "summarising" | null {
    const out = tls.tlsReplayOf(this.db, orgName, reportId);
    if (out === null || out === "duplicate") return out;
    return this.takeLease("tls", out.ref) ? out : "summarising";
  }

  tlsAnalytics(from: string, to: string, limit: number) {
    return tls.analytics(this.db, from, to, limit);
  }

  tlsIntake(sinceMs: number): number {
    return tls.intake(this.db, sinceMs);
  }

  tlsBaseline(since: string, before: string) {
    return tls.baseline(this.db, since, before);
  }

  /** A DMARC failure sample (D127); the alarm purges it after 30 days. */
  async insertFailure(row: Omit<samples.FailureSample, "id">): Promise<void> {
    samples.insertFailure(this.db, row);
    await this.ensureAlarm(row.receivedAt);
  }

  listFailures(range: samples.ReceivedRange, limit: number, offset: number): samples.FailureSample[] {
    return samples.listFailures(this.db, range, limit, offset);
  }

  countFailures(range: samples.ReceivedRange): number {
    return samples.countFailures(this.db, range);
  }

  /** Checks (with their diffs) copied from the D1 outbox, in one transaction; a copy held already adds nothing (D135). */
  async storeChecks(rows: history.CheckRow[], changes: history.DiffRow[]): Promise<number> {
    const added = this.ctx.storage.transactionSync(() => history.storeChecks(this.db, rows, changes));
    const newest = Math.max(0, ...rows.map((r) => r.createdAt));
    await this.ensureAlarm(newest);
    return added;
  }

  /** Which of these check ids are stored here (a redelivered check message, D135). */
  heldChecks(ids: string[]): string[] {
    return history.heldChecks(this.db, ids);
  }

  getCheck(id: string): history.CheckRow | null {
    return history.getCheck(this.db, id);
  }

  checkPage(limit: number, offset: number) {
    return history.checkPage(this.db, limit, offset);
  }

  diffPage(limit: number, offset: number) {
    return history.diffPage(this.db, limit, offset);
  }

  /** What the object holds (tests, the mover's progress). */
  stats(): { reports: number; rows: number; messages: number; tlsReports: number; failures: number; checks: number } {
    const r = this.db.get<{ reports: number; rows: number; messages: number | null; tls: number; failures: number; checks: number }>(sql`
      SELECT (SELECT COUNT(*) FROM reports) AS reports, (SELECT COUNT(*) FROM rows) AS rows,
        (SELECT SUM(messages) FROM rows) AS messages, (SELECT COUNT(*) FROM tls_reports) AS tls, (SELECT COUNT(*) FROM failures) AS failures,
        (SELECT COUNT(*) FROM checks) AS checks`);
    return {
      reports: num(r?.reports),
      rows: num(r?.rows),
      messages: num(r?.messages),
      tlsReports: num(r?.tls),
      failures: num(r?.failures),
      checks: num(r?.checks),
    };
  }

  /** Retention and rollup (D123) and the check history's retention (D136) at `nowMs`; the alarm runs it with the current time. */
  maintain(nowMs: number = Date.now()): MaintenanceResult & { failuresPurged: number; checksPurged: number; posturesDropped: number } {
    const retention = this.ctx.storage.kv.get<number>("retention_days") ?? DEFAULT_RETENTION_DAYS;
    return this.ctx.storage.transactionSync(() => {
      const kept = history.purgeChecks(this.db, nowMs);
      return {
        ...maintain(this.db, retention, nowMs),
        failuresPurged: samples.purgeFailures(this.db, nowMs),
        checksPurged: kept.checks,
        posturesDropped: kept.postures,
      };
    });
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    const out = this.maintain(now);
    // Empty after the purge: nothing to come back for until the next write sets an alarm again.
    const left = this.stats();
    if (left.reports + left.rows + left.tlsReports + left.failures + left.checks === 0) return;
    await this.ctx.storage.setAlarm(out.more ? now + 60_000 : nextAlarmAt(now));
  }

  /** The domain was deleted: every byte of its reports and history goes, and its alarm (D124). */
  async destroy(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  /** Takes the report's summarising lease unless another copy holds one younger than SUMMARY_LEASE_MS. */
  private takeLease(kind: ReportKind, ref: number): boolean {
    const key = `${kind}:${ref}`;
    const now = Date.now();
    const held = this.leases.get(key);
    if (held !== undefined && now - held < SUMMARY_LEASE_MS) return false;
    this.leases.set(key, now);
    return true;
  }

  private async ensureAlarm(nowMs: number): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(nextAlarmAt(Math.max(nowMs, Date.now())));
  }
}
