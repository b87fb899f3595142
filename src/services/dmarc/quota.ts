// Limits on a domain's public report address (docs/limits.md): reports and records per UTC day, reports
// per reporter per day, the report's date range and the plan's retention. A refusal is counted per day
// and reason (dmarc_refusals) so the domain's DMARC summary shows what was turned away. Does I/O (D1, and
// the domain's report object for what it took today: docs/decisions.md D121).
import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { ParsedReport } from "../../core/reports";
import { dmarcRefusals, domains, teams } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { MAX_REPORT_RANGE_DAYS, type Plan, REPORT_LIMITS } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { refused } from "./ingest-errors";
import { domainStore } from "../domains/domain-store";

export type RefusalReason = "reports_per_day" | "records_per_day" | "reports_per_reporter" | "date_range" | "future_report" | "beyond_retention";

const dayOf = (now: Date) => now.toISOString().slice(0, 10);
const startOfDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
const secondsToNextDay = (now: Date) => Math.max(1, Math.ceil((startOfDay(now).getTime() + DAY_MS - now.getTime()) / 1000));

async function countRefusal(svc: Services, domainId: number, reason: RefusalReason, now: Date): Promise<void> {
  await svc.db
    .insert(dmarcRefusals)
    .values({ domainId, day: dayOf(now), reason, count: 1 })
    .onConflictDoUpdate({ target: [dmarcRefusals.domainId, dmarcRefusals.day, dmarcRefusals.reason], set: { count: sql`${dmarcRefusals.count} + 1` } })
    .catch((e: unknown) => console.warn(JSON.stringify({ level: "warn", msg: "refusal count not recorded", error: String(e) })));
}

async function refuse(svc: Services, domainId: number, reason: RefusalReason, now: Date, error: ApiError): Promise<never> {
  await countRefusal(svc, domainId, reason, now);
  throw error;
}

const overQuota = (message: string, now: Date) => new ApiError(429, "quota_exceeded", message, undefined, { "Retry-After": String(secondsToNextDay(now)) });

export async function planOf(svc: Services, domainId: number): Promise<Plan> {
  const row = await svc.db.select({ plan: teams.plan }).from(domains).innerJoin(teams, eq(teams.id, domains.teamId)).where(eq(domains.id, domainId)).get();
  return row?.plan ?? "starter";
}

/** Before parsing: a domain already at its daily report count refuses at once (no parse, no write). */
export async function admitReportCount(svc: Services, domainId: number, plan: Plan, now: Date): Promise<void> {
  const limits = REPORT_LIMITS[plan];
  const today = await domainStore(svc, { id: domainId }).intake(startOfDay(now).getTime());
  if (today.reports >= limits.reports_per_day) {
    await refuse(
      svc,
      domainId,
      "reports_per_day",
      now,
      overQuota(`This domain's report address accepts ${limits.reports_per_day} reports a day on its plan; retry tomorrow.`, now),
    );
  }
}

/** After parsing: the date range, the retention window, records per day and reports per reporter. */
export async function admitParsedReport(svc: Services, domainId: number, plan: Plan, parsed: ParsedReport, now: Date): Promise<void> {
  const limits = REPORT_LIMITS[plan];
  const { begin, end, orgName, email } = parsed.metadata;
  const beginMs = begin * 1000;
  const endMs = end * 1000;
  if (endMs - beginMs > MAX_REPORT_RANGE_DAYS * DAY_MS) {
    await refuse(svc, domainId, "date_range", now, refused("date_range_too_long", `The report's date range spans more than ${MAX_REPORT_RANGE_DAYS} days.`));
  }
  // One hour of clock skew between reporter and service is tolerated.
  if (beginMs > now.getTime() + 3_600_000) {
    await refuse(svc, domainId, "future_report", now, refused("report_in_future", "The report's date range starts in the future."));
  }
  if (endMs < now.getTime() - limits.retention_days * DAY_MS) {
    await refuse(
      svc,
      domainId,
      "beyond_retention",
      now,
      refused("beyond_retention", `The report ends more than ${limits.retention_days} days ago, beyond the plan's retention; it would never be visible.`),
    );
  }
  const since = startOfDay(now);
  const today = await domainStore(svc, { id: domainId }).intake(since.getTime(), { orgName, email });
  if (today.records + parsed.totals.records > limits.records_per_day) {
    await refuse(
      svc,
      domainId,
      "records_per_day",
      now,
      overQuota(`This domain's report address accepts ${limits.records_per_day} records a day on its plan; retry tomorrow.`, now),
    );
  }
  if (today.reporterReports >= limits.reports_per_reporter_day) {
    await refuse(
      svc,
      domainId,
      "reports_per_reporter",
      now,
      overQuota(
        `This reporter sent ${limits.reports_per_reporter_day} reports for this domain today, the most accepted from one reporter; retry tomorrow.`,
        now,
      ),
    );
  }
}

/** Refused reports of one domain since `from`, by reason (for the DMARC summary). */
/** Refusals counted on the days from `from` to `to` (inclusive; today when omitted). */
export async function refusalsSince(svc: Services, domainId: number, from: Date, to?: Date): Promise<{ total: number; by_reason: Record<string, number> }> {
  const rows = await svc.db
    .select({ reason: dmarcRefusals.reason, n: sql<number>`SUM(${dmarcRefusals.count})` })
    .from(dmarcRefusals)
    .where(and(eq(dmarcRefusals.domainId, domainId), gte(dmarcRefusals.day, dayOf(from)), ...(to ? [lte(dmarcRefusals.day, dayOf(to))] : [])))
    .groupBy(dmarcRefusals.reason);
  const by_reason = Object.fromEntries(rows.map((r) => [r.reason, Number(r.n)]));
  return { total: rows.reduce((n, r) => n + Number(r.n), 0), by_reason };
}
