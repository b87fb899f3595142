// The data model of one domain's report object (docs/decisions.md D120): report identities for
// duplicate detection, aggregated DMARC rows and SMTP TLS reports of ONE domain, so no column names
// the domain. Times are integer milliseconds since the epoch; days are YYYY-MM-DD (UTC).
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** One DMARC aggregate report; (org_name, report_id) identifies it (RFC 7489 Appendix C). */
export const reports = sqliteTable(
  "reports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orgName: text("org_name").notNull(),
    reportId: text("report_id").notNull(),
    email: text("email"),
    version: text("version"),
    dateBegin: integer("date_begin").notNull(),
    dateEnd: integer("date_end").notNull(),
    records: integer("records").notNull(),
    // Kept on the report: its rows lose their report once rolled up (D123).
    messages: integer("messages").notNull(),
    pass: integer("pass").notNull(),
    policy: text("policy"),
    receivedAt: integer("received_at").notNull(),
    // Set once the worker's D1 batch (daily summary, event, alerts) committed (D122).
    summarisedAt: integer("summarised_at"),
  },
  (t) => [uniqueIndex("reports_identity_uq").on(t.orgName, t.reportId), index("reports_end_idx").on(t.dateEnd), index("reports_received_idx").on(t.receivedAt)],
);

/** Aggregated rows: one per (report, day, source, outcome); report_ref is NULL once rolled up (D123). */
export const rows = sqliteTable(
  "rows",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reportRef: integer("report_ref"),
    day: text("day").notNull(),
    sourceIp: text("source_ip").notNull(),
    headerFrom: text("header_from"),
    disposition: text("disposition"),
    dkimAligned: integer("dkim_aligned").notNull(),
    spfAligned: integer("spf_aligned").notNull(),
    dkimDomain: text("dkim_domain"),
    dkimSelector: text("dkim_selector"),
    dkimResult: text("dkim_result"),
    spfDomain: text("spf_domain"),
    spfResult: text("spf_result"),
    messages: integer("messages").notNull(),
  },
  (t) => [index("rows_day_idx").on(t.day), index("rows_report_idx").on(t.reportRef), index("rows_source_idx").on(t.sourceIp)],
);

/** One SMTP TLS report (RFC 8460 §4), identified by organization and report-id. */
export const tlsReports = sqliteTable(
  "tls_reports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orgName: text("org_name").notNull(),
    reportId: text("report_id").notNull(),
    contact: text("contact"),
    dateBegin: integer("date_begin").notNull(),
    dateEnd: integer("date_end").notNull(),
    day: text("day").notNull(),
    successful: integer("successful").notNull(),
    failed: integer("failed").notNull(),
    via: text("via").notNull(),
    receivedAt: integer("received_at").notNull(),
    summarisedAt: integer("summarised_at"),
  },
  (t) => [
    uniqueIndex("tls_reports_identity_uq").on(t.orgName, t.reportId),
    index("tls_reports_day_idx").on(t.day),
    index("tls_reports_received_idx").on(t.receivedAt),
  ],
);

/** One policy of a TLS report (RFC 8460 §4.3-4.4). */
export const tlsPolicies = sqliteTable(
  "tls_policies",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reportRef: integer("report_ref").notNull(),
    day: text("day").notNull(),
    policyType: text("policy_type").notNull(),
    policyDomain: text("policy_domain").notNull(),
    policyStrings: text("policy_strings"),
    mxHosts: text("mx_hosts"),
    successful: integer("successful").notNull(),
    failed: integer("failed").notNull(),
  },
  (t) => [index("tls_policies_day_idx").on(t.day), index("tls_policies_report_idx").on(t.reportRef)],
);

/** One failure-details entry of a TLS policy (RFC 8460 §4.3). */
export const tlsFailures = sqliteTable(
  "tls_failures",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    policyRef: integer("policy_ref").notNull(),
    reportRef: integer("report_ref").notNull(),
    day: text("day").notNull(),
    resultType: text("result_type").notNull(),
    sendingMtaIp: text("sending_mta_ip"),
    receivingMxHostname: text("receiving_mx_hostname"),
    receivingIp: text("receiving_ip"),
    failedCount: integer("failed_count").notNull(),
    failureReasonCode: text("failure_reason_code"),
  },
  (t) => [index("tls_failures_day_idx").on(t.day), index("tls_failures_report_idx").on(t.reportRef)],
);

/** DMARC failure samples (RFC 9991; ARF, RFC 6591): only the fields the privacy rules let us keep (D106, D127). */
export const failures = sqliteTable(
  "failures",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reportingOrg: text("reporting_org"),
    arrivalDate: integer("arrival_date"),
    sourceIp: text("source_ip"),
    authFailure: text("auth_failure"),
    authResults: text("auth_results"),
    identityAlignment: text("identity_alignment"),
    dkimDomain: text("dkim_domain"),
    dkimSelector: text("dkim_selector"),
    deliveryResult: text("delivery_result"),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [index("failures_received_idx").on(t.receivedAt)],
);

/**
 * The domain's check history (docs/decisions.md D134): every check once its D1 batch committed, copied
 * here under its own id (chk_...), the full posture JSON for 30 days (the newest always), the rest for
 * 400 days (docs/limits.md). D1 keeps only the domain's current state.
 */
export const checks = sqliteTable(
  "checks",
  {
    id: text("id").primaryKey(),
    status: text("status").notNull(), // completed | failed
    trigger: text("trigger").notNull(), // scheduled | manual | verify
    score: integer("score"),
    grade: text("grade"),
    dmarcPolicy: text("dmarc_policy"),
    // The check's StoredPosture (src/core/posture/stored.ts) as JSON text, parsed by the service that reads
    // it; null once older than 30 days, or for a failed check.
    posture: text("posture"),
    staleParts: text("stale_parts", { mode: "json" }).$type<string[]>(),
    queries: integer("queries").notNull(),
    durationMs: integer("duration_ms"),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("checks_created_idx").on(t.createdAt)],
);

/** One changed field of a check, under the id D1 gave it when the check was recorded. */
export const diffs = sqliteTable(
  "diffs",
  {
    id: integer("id").primaryKey(),
    checkId: text("check_id").notNull(),
    category: text("category").notNull(),
    field: text("field").notNull(),
    before: text("before"),
    after: text("after"),
    severity: text("severity").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("diffs_created_idx").on(t.createdAt), index("diffs_check_idx").on(t.checkId)],
);
