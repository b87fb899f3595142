// DMARC summary and alerts of the team's monitored domains.
import { z } from "zod";
import { pageMeta, PaginationQuery } from "../../lib/pagination";
import { listAlerts } from "../../services/alerts/list-alerts";
import { resolveAlert } from "../../services/alerts/resolve-alert";
import { DaysQuery } from "../../services/dkim-inventory/inputs";
import { getDmarcAnalytics } from "../../services/dmarc/analytics";
import { listFailureSamples } from "../../services/failure-reports/list";
import { tool } from "../kit";
import { alertId, domainId } from "./ids";

export const reportTools = [
  tool({
    name: "get_dmarc_summary",
    title: "DMARC report summary",
    description:
      "DMARC aggregate-report analytics of a monitored domain over the last `days` days (1-365, default 30): messages, pass/fail and alignment rates, top sending sources with identified senders, failing senders with fixes, whether it is safe to move the policy toward reject, and the suggested DMARC record. Use it to answer 'who sends mail as this domain' or 'can we enforce DMARC'.",
    input: DaysQuery.extend({ domain_id: domainId }),
    effect: "read",
    // A source's reverse DNS name is published by whoever holds the address.
    untrusted: ["sources[].ptr"],
    run: async ({ svc, ctx }, { domain_id, days }) => ({ data: await getDmarcAnalytics(svc, ctx, domain_id, days) }),
  }),
  tool({
    name: "list_dmarc_failures",
    title: "List DMARC failure samples",
    description:
      "DMARC failure samples of a monitored domain (failure reports receivers mailed to its report address when its DMARC record has ruf), newest first, kept 30 days: reporter, source IP, which check failed, authentication results, alignment, DKIM domain and selector, what the receiver did. Never the message itself. Paginated like list_domains.",
    input: PaginationQuery.extend({ domain_id: domainId }),
    effect: "read",
    // Written by the receiver that mailed the failure report (RFC 6591 fields, Authentication-Results).
    untrusted: ["reporting_org", "auth_results"],
    run: async ({ svc, ctx }, { domain_id, ...q }) => {
      const { items, total } = await listFailureSamples(svc, ctx, domain_id, q);
      return { data: items, meta: pageMeta(q, total) };
    },
  }),
  tool({
    name: "list_alerts",
    title: "List alerts",
    description:
      "The team's alerts, newest first: DNS drift, blocklist listings, DMARC failure spikes, expiring domains, DKIM problems and lost ownership, each with severity, title, body and occurrences. open: true for open alerts only, false for resolved only, omitted for all. Paginated like list_domains.",
    input: PaginationQuery.extend({ open: z.boolean().optional().describe("true: open alerts only; false: resolved only; omitted: all.") }),
    effect: "read",
    // A DMARC or TLS alert's title and body quote the reporter's org_name and the report's failure types.
    untrusted: ["title", "body"],
    run: async ({ svc, ctx }, q) => {
      const { items, total } = await listAlerts(svc, ctx, q);
      return { data: items, meta: pageMeta(q, total) };
    },
  }),
  tool({
    name: "resolve_alert",
    title: "Resolve an alert",
    description: "Marks an alert resolved (once the user has dealt with it). Resolving an already resolved alert returns it unchanged.",
    input: z.object({ alert_id: alertId }),
    effect: "write",
    idempotent: true,
    run: async ({ svc, ctx }, { alert_id }) => ({ data: await resolveAlert(svc, ctx, alert_id) }),
  }),
];
