// Plan allowances (api-decisions.md "Plans") and check intervals per plan.

export const PLANS = ["starter", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  requests_per_minute: number;
  requests_per_month: number;
  webhook_endpoints: number;
  /** Monitored domains a team may hold (docs/limits.md). */
  domains: number;
  check_interval_hours: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: { requests_per_minute: 60, requests_per_month: 10_000, webhook_endpoints: 1, domains: 10, check_interval_hours: 24 },
  pro: { requests_per_minute: 300, requests_per_month: 100_000, webhook_endpoints: 5, domains: 100, check_interval_hours: 6 },
  enterprise: { requests_per_minute: 1_200, requests_per_month: 1_000_000, webhook_endpoints: 25, domains: 1_000, check_interval_hours: 1 },
};
