// Plan allowances (docs/decisions.md D5, docs/limits.md) and check intervals per plan.

export const PLANS = ["starter", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  requests_per_minute: number;
  requests_per_month: number;
  webhook_endpoints: number;
  /** Notification channels (email, Slack, Teams, PagerDuty) a team may hold (docs/limits.md). */
  notification_channels: number;
  /** Monitored domains a team may hold (docs/limits.md). */
  domains: number;
  check_interval_hours: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: { requests_per_minute: 60, requests_per_month: 10_000, webhook_endpoints: 1, notification_channels: 3, domains: 10, check_interval_hours: 24 },
  pro: { requests_per_minute: 300, requests_per_month: 100_000, webhook_endpoints: 5, notification_channels: 10, domains: 100, check_interval_hours: 6 },
  enterprise: {
    requests_per_minute: 1_200,
    requests_per_month: 1_000_000,
    webhook_endpoints: 25,
    notification_channels: 50,
    domains: 1_000,
    check_interval_hours: 1,
  },
};

/** What a domain's public report address accepts per plan (docs/limits.md). */
export interface ReportLimits {
  /** Reports stored per domain per UTC day. */
  reports_per_day: number;
  /** Records (report rows) stored per domain per UTC day. */
  records_per_day: number;
  /** Reports per reporter (org_name + email) per domain per UTC day; real reporters send one or a few. */
  reports_per_reporter_day: number;
  /** Days of DMARC data kept; an older report is refused, older rows are purged. */
  retention_days: number;
}

export const REPORT_LIMITS: Record<Plan, ReportLimits> = {
  starter: { reports_per_day: 200, records_per_day: 100_000, reports_per_reporter_day: 20, retention_days: 90 },
  pro: { reports_per_day: 1_000, records_per_day: 1_000_000, reports_per_reporter_day: 50, retention_days: 365 },
  enterprise: { reports_per_day: 5_000, records_per_day: 10_000_000, reports_per_reporter_day: 200, retention_days: 730 },
};

/** A report's date range may span at most this many days (RFC 7489 §7.2 asks for daily reports). */
export const MAX_REPORT_RANGE_DAYS = 7;

/** Days an audit entry is kept per plan (docs/limits.md, docs/audit.md "Retention"); older sealed entries are pruned daily. */
export const AUDIT_RETENTION_DAYS: Record<Plan, number> = { starter: 90, pro: 365, enterprise: 730 };
