// The whole data model (drizzle, D1/SQLite). Times are integer milliseconds since the epoch.
// Every table reachable from the API carries team_id (directly or through its parent) so that
// services can scope each query by team; every query path has an index below.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const ms = (name: string) => integer(name, { mode: "timestamp_ms" });
const createdAt = () =>
  ms("created_at")
    .notNull()
    .$defaultFn(() => new Date());
const bool = (name: string) => integer(name, { mode: "boolean" });

import { PLANS, type Plan } from "../lib/plans";

export { PLANS, type Plan };
export const TOKEN_SCOPES = ["full", "read_only"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const teams = sqliteTable("teams", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  plan: text("plan", { enum: PLANS }).notNull(),
  ownerEmail: text("owner_email").notNull(),
  createdAt: createdAt(),
});

export const TOKEN_CREATORS = ["member", "operator"] as const;
export type TokenCreator = (typeof TOKEN_CREATORS)[number];

export const tokens = sqliteTable(
  "tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    scope: text("scope", { enum: TOKEN_SCOPES }).notNull(),
    tokenHash: text("token_hash").notNull(), // hex SHA-256 of the whole token; the token itself is never stored
    prefix: text("prefix").notNull(), // non-secret display prefix
    createdAt: createdAt(),
    lastUsedAt: ms("last_used_at"),
    revokedAt: ms("revoked_at"),
    /** Who made it (docs/decisions.md D151): a member in the dashboard or the operator through the admin API; null: made before this was recorded. */
    createdBy: text("created_by", { enum: TOKEN_CREATORS }),
    /** The member, when a member made it. */
    createdByUserId: integer("created_by_user_id"),
  },
  (t) => [
    uniqueIndex("tokens_hash_uq").on(t.tokenHash),
    index("tokens_team_idx").on(t.teamId),
    // Revoking what a member made when they leave or lose write (D152) reads this index.
    index("tokens_creator_idx").on(t.teamId, t.createdByUserId),
  ],
);

export const domains = sqliteTable(
  "domains",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    client: text("client"),
    verified: bool("verified").notNull().default(false),
    verificationToken: text("verification_token").notNull(),
    verifiedAt: ms("verified_at"),
    reportToken: text("report_token").notNull(), // local part of the DMARC report address
    score: integer("score"),
    grade: text("grade"),
    dmarcPolicy: text("dmarc_policy"),
    lastCheckedAt: ms("last_checked_at"),
    nextCheckAt: ms("next_check_at"),
    lastCheckId: text("last_check_id"),
    registrationExpiresAt: ms("registration_expires_at"),
    registrationCheckedAt: ms("registration_checked_at"),
    createdAt: createdAt(),
    /** The check queued and not yet recorded: a second request returns it instead of queueing another. */
    pendingCheckId: text("pending_check_id"),
    pendingCheckAt: ms("pending_check_at"),
    /** The daily ownership re-check: when it last ran, and since when the record has been gone (null while present). */
    ownershipCheckedAt: ms("ownership_checked_at"),
    ownershipMissingSince: ms("ownership_missing_since"),
  },
  (t) => [
    uniqueIndex("domains_team_name_uq").on(t.teamId, t.name),
    uniqueIndex("domains_report_token_uq").on(t.reportToken),
    index("domains_due_idx").on(t.verified, t.nextCheckAt),
    index("domains_name_idx").on(t.name),
  ],
);

export const checks = sqliteTable(
  "checks",
  {
    id: text("id").primaryKey(), // chk_..., named by the queue message so redelivery is idempotent
    domainId: integer("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["completed", "failed"] }).notNull(),
    trigger: text("trigger", { enum: ["scheduled", "manual", "verify"] }).notNull(),
    score: integer("score"),
    grade: text("grade"),
    dmarcPolicy: text("dmarc_policy"),
    posture: text("posture", { mode: "json" }), // full posture result of this check
    staleParts: text("stale_parts", { mode: "json" }).$type<string[]>(),
    queries: integer("queries").notNull().default(0),
    durationMs: integer("duration_ms"),
    error: text("error"),
    createdAt: createdAt(),
    /**
     * When the check and its diffs were copied into the domain's object (docs/decisions.md D135): the
     * posture JSON and diffs leave D1 then; the row stays a little longer only so that a second run of
     * the same check id still fails on the primary key, then it goes.
     */
    archivedAt: ms("archived_at"),
  },
  (t) => [
    index("checks_domain_created_idx").on(t.domainId, t.createdAt),
    index("checks_unarchived_idx").on(t.domainId, t.createdAt).where(sql`archived_at IS NULL`),
    index("checks_archived_idx").on(t.archivedAt).where(sql`archived_at IS NOT NULL`),
  ],
);

export const diffs = sqliteTable(
  "diffs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    domainId: integer("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    checkId: text("check_id")
      .notNull()
      .references(() => checks.id, { onDelete: "cascade" }),
    category: text("category").notNull(),
    field: text("field").notNull(),
    before: text("before"),
    after: text("after"),
    severity: text("severity").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("diffs_domain_created_idx").on(t.domainId, t.createdAt), index("diffs_check_idx").on(t.checkId)],
);

export const dkimSelectors = sqliteTable(
  "dkim_selectors",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    domainId: integer("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    selector: text("selector").notNull(),
    source: text("source", { enum: ["discovered", "manual", "dmarc"] }).notNull(),
    status: text("status", { enum: ["active", "invalid", "revoked", "missing", "pending"] }).notNull(),
    health: text("health", { enum: ["pass", "warning", "fail"] })
      .notNull()
      .default("warning"),
    provider: text("provider"),
    delegatedTo: text("delegated_to"),
    record: text("record"),
    keyType: text("key_type"),
    keyBits: integer("key_bits"),
    keyFingerprint: text("key_fingerprint"),
    keyTesting: bool("key_testing"),
    keyFirstSeenAt: ms("key_first_seen_at"),
    rotations: integer("rotations").notNull().default(0),
    issues: text("issues", { mode: "json" }),
    firstSeenAt: ms("first_seen_at"),
    lastSeenAt: ms("last_seen_at"),
    missingSince: ms("missing_since"),
    lastReportAt: ms("last_report_at"),
    staleNotifiedAt: ms("stale_notified_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("dkim_selectors_domain_selector_uq").on(t.domainId, t.selector),
    // The daily key audit reads only active keys first seen before the stale threshold.
    index("dkim_selectors_audit_idx").on(t.status, t.keyFirstSeenAt),
  ],
);

export const dkimKeys = sqliteTable(
  "dkim_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    selectorId: integer("selector_id")
      .notNull()
      .references(() => dkimSelectors.id, { onDelete: "cascade" }),
    fingerprint: text("fingerprint").notNull(),
    type: text("type").notNull(),
    bits: integer("bits"),
    record: text("record").notNull(),
    firstSeenAt: ms("first_seen_at").notNull(),
    lastSeenAt: ms("last_seen_at").notNull(),
    retiredAt: ms("retired_at"),
    retiredReason: text("retired_reason", { enum: ["rotated", "revoked", "removed"] }),
  },
  (t) => [
    uniqueIndex("dkim_keys_selector_fp_uq").on(t.selectorId, t.fingerprint),
    // The daily purge of keys retired more than 400 days ago (docs/decisions.md D139) reads only retired ones.
    index("dkim_keys_retired_idx").on(t.retiredAt).where(sql`retired_at IS NOT NULL`),
  ],
);

/** Reports refused at a domain's report address, per UTC day and reason (quota, per-reporter limit, ...). */
export const dmarcRefusals = sqliteTable(
  "dmarc_refusals",
  {
    domainId: integer("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    day: text("day").notNull(), // YYYY-MM-DD (UTC)
    reason: text("reason").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.domainId, t.day, t.reason] })],
);

/**
 * One small summary per domain and UTC day of its DMARC report data (docs/decisions.md D120, D122): the
 * report rows live in the domain's report object; this is what team-wide views and alerts read. Written
 * with the ABSOLUTE totals the object answers, never incremented, and only by a higher `seq` (D122).
 */
export const dmarcDaily = sqliteTable(
  "dmarc_daily",
  {
    domainId: integer("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    day: text("day").notNull(), // YYYY-MM-DD (UTC)
    reports: integer("reports").notNull(), // reports whose period begins that day
    messages: integer("messages").notNull(),
    pass: integer("pass").notNull(),
    fail: integer("fail").notNull(),
    topFailing: text("top_failing", { mode: "json" }).$type<Array<{ ip: string; fail: number }>>().notNull(),
    seq: integer("seq").notNull(),
  },
  (t) => [primaryKey({ columns: [t.domainId, t.day] })],
);

/** Which reporter sent a domain reports on which UTC day of arrival (silent-reporter alert, D104). */
export const dmarcReporterDays = sqliteTable(
  "dmarc_reporter_days",
  {
    domainId: integer("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    day: text("day").notNull(), // YYYY-MM-DD (UTC) of arrival
    orgName: text("org_name").notNull(),
    lastAt: ms("last_at").notNull(), // the day's latest arrival
  },
  (t) => [primaryKey({ columns: [t.domainId, t.day, t.orgName] })],
);

/**
 * A report whose D1 step is due (docs/decisions.md D160): written before the report goes into the domain's
 * object, deleted by the D1 batch that summarises it. A row still here a minute after `due_at` means
 * that step never ran (the Worker died, nobody re-sent): the every-minute report-summaries job runs it.
 */
export const reportSummariesDue = sqliteTable(
  "report_summaries_due",
  {
    domainId: integer("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["dmarc", "tls"] }).notNull(),
    orgName: text("org_name").notNull(),
    reportId: text("report_id").notNull(),
    dueAt: ms("due_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.domainId, t.kind, t.orgName, t.reportId] }), index("report_summaries_due_at_idx").on(t.dueAt)],
);

export const alerts = sqliteTable(
  "alerts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    domainId: integer("domain_id").references(() => domains.id, { onDelete: "cascade" }),
    kind: text("kind", {
      enum: ["drift", "blacklist", "dmarc_failure_spike", "expiry", "dkim", "ownership", "tls_failure", "new_sender", "reports_missing", "hosting"],
    }).notNull(),
    subject: text("subject").notNull(), // what the alert is about, for "one open alert per subject"
    severity: text("severity").notNull(),
    title: text("title").notNull(),
    body: text("body"),
    occurrences: integer("occurrences").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: ms("updated_at")
      .notNull()
      .$defaultFn(() => new Date()),
    resolvedAt: ms("resolved_at"),
  },
  (t) => [
    index("alerts_team_created_idx").on(t.teamId, t.createdAt),
    uniqueIndex("alerts_open_subject_uq").on(t.teamId, t.domainId, t.kind, t.subject).where(sql`resolved_at IS NULL`),
    // The daily purge of alerts resolved more than 90 days ago (docs/limits.md) reads only resolved ones.
    index("alerts_resolved_idx").on(t.resolvedAt).where(sql`resolved_at IS NOT NULL`),
  ],
);

export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description"),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    domainIds: text("domain_ids", { mode: "json" }).$type<number[] | null>(),
    enabled: bool("enabled").notNull().default(true),
    secretEnc: text("secret_enc").notNull(), // AES-GCM with WEBHOOK_SECRET_KEY
    previousSecretEnc: text("previous_secret_enc"),
    previousSecretExpiresAt: ms("previous_secret_expires_at"),
    failureCount: integer("failure_count").notNull().default(0),
    /** The team log's streak seq of the values above: only a higher one writes them (docs/decisions.md D143). */
    statsSeq: integer("stats_seq").notNull().default(0),
    disabledAt: ms("disabled_at"),
    disabledReason: text("disabled_reason"),
    lastSuccessAt: ms("last_success_at"),
    lastFailureAt: ms("last_failure_at"),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_endpoints_team_idx").on(t.teamId)],
);

/**
 * The outbox: written in the same batch as the change that caused it, deleted once fanned out into the
 * team's webhook log (docs/decisions.md D141). Deliveries live in that log; migration 0010 renamed the
 * old D1 table legacy_deliveries for the mover (D145).
 */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(), // evt_...
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    domainId: integer("domain_id"), // no FK: domain.deleted outlives its domain
    type: text("type").notNull(),
    payload: text("payload", { mode: "json" }).notNull(), // the full outbound body
    createdAt: createdAt(),
    fannedOutAt: ms("fanned_out_at"),
  },
  (t) => [index("events_pending_fanout_idx").on(t.fannedOutAt, t.createdAt), index("events_team_created_idx").on(t.teamId, t.createdAt)],
);

/** Notices to a team owner (endpoint disabled, ...): sent by email when configured, always recorded. */
export const notifications = sqliteTable(
  "notifications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    sentAt: ms("sent_at"),
    error: text("error"),
    createdAt: createdAt(),
  },
  (t) => [index("notifications_team_idx").on(t.teamId, t.createdAt)],
);

/** Cache of RDAP registration expiry and sender SPF ranges, shared across teams (public data). */
export const publicCache = sqliteTable(
  "public_cache",
  {
    kind: text("kind").notNull(),
    key: text("key").notNull(),
    value: text("value", { mode: "json" }).notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] })],
);

// ---- Accounts: people, their teams, sign-in links and browser sessions (docs/decisions.md D30-D34) ----

export const MEMBER_ROLES = ["owner", "admin", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A person who signs in to the dashboard by email link. The address is stored lower-cased. */
export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    email: text("email").notNull(),
    createdAt: createdAt(),
    lastSignInAt: ms("last_sign_in_at"),
  },
  (t) => [uniqueIndex("users_email_uq").on(t.email)],
);

/** A user's place in a team. Exactly one owner per team (teams.owner_email follows it). */
export const memberships = sqliteTable(
  "memberships",
  {
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: MEMBER_ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index("memberships_user_idx").on(t.userId)],
);

export const LINK_PURPOSES = ["sign_in", "invite"] as const;

/** One-time links mailed to an address: stored only as SHA-256, single use, 15-minute expiry. */
export const signInLinks = sqliteTable(
  "sign_in_links",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenHash: text("token_hash").notNull(),
    email: text("email").notNull(),
    purpose: text("purpose", { enum: LINK_PURPOSES }).notNull(),
    /** For an invitation: the team, the role offered and who invited. */
    teamId: integer("team_id").references(() => teams.id, { onDelete: "cascade" }),
    role: text("role", { enum: MEMBER_ROLES }),
    invitedBy: integer("invited_by").references(() => users.id, { onDelete: "set null" }),
    /** A same-origin path to land on after signing in (validated when stored). */
    next: text("next"),
    createdAt: createdAt(),
    expiresAt: ms("expires_at").notNull(),
    usedAt: ms("used_at"),
  },
  (t) => [
    uniqueIndex("sign_in_links_hash_uq").on(t.tokenHash),
    index("sign_in_links_team_idx").on(t.teamId, t.purpose),
    index("sign_in_links_expires_idx").on(t.expiresAt),
  ],
);

/** Browser sessions: the cookie carries a random id, stored here only as SHA-256. */
export const sessions = sqliteTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The team the dashboard shows; must still be one of the user's memberships when read. */
    teamId: integer("team_id").references(() => teams.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    lastSeenAt: ms("last_seen_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
    revokedAt: ms("revoked_at"),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

/** Messages the local development outbox shows (only written when DEV_OUTBOX=true; never in production). */
export const devOutbox = sqliteTable("dev_outbox", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  recipient: text("recipient").notNull(),
  subject: text("subject").notNull(),
  body: text("body").notNull(),
  /** The whole MIME message, when the sender built one (notifications and digests): /dev/outbox shows its HTML part. */
  raw: text("raw"),
  createdAt: createdAt(),
});

// ---- Beyond aggregate reports (docs/decisions.md D100-D109) ----

// ---- Notifications to people: channels, rules, grouped messages and digests (docs/decisions.md D176-D190) ----

export const CHANNEL_KINDS = ["email", "slack", "teams", "pagerduty"] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
/** An email channel mails the members who opted in, or one outside address once it confirmed (D177). */
export const EMAIL_MODES = ["members", "address"] as const;
export const DIGEST_FREQUENCIES = ["weekly", "daily", "off"] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];

/** Where notifications go. A chat URL or routing key is sealed like a webhook secret; only its hint is shown (D178). */
export const notificationChannels = sqliteTable(
  "notification_channels",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: CHANNEL_KINDS }).notNull(),
    name: text("name").notNull(),
    emailMode: text("email_mode", { enum: EMAIL_MODES }),
    /** The outside address of an address channel (lower-cased). */
    address: text("address"),
    /** An address channel sends nothing until the address confirmed by its link (D177). */
    confirmedAt: ms("confirmed_at"),
    confirmTokenHash: text("confirm_token_hash"),
    confirmExpiresAt: ms("confirm_expires_at"),
    /** Sealed (AES-GCM, bound to the channel) webhook URL or PagerDuty routing key. */
    targetEnc: text("target_enc"),
    /** What may be shown of the target: host and the last four characters. */
    targetHint: text("target_hint"),
    enabled: bool("enabled").notNull().default(true),
    failureCount: integer("failure_count").notNull().default(0),
    disabledAt: ms("disabled_at"),
    disabledReason: text("disabled_reason"),
    lastSuccessAt: ms("last_success_at"),
    lastFailureAt: ms("last_failure_at"),
    createdAt: createdAt(),
  },
  (t) => [index("notification_channels_team_idx").on(t.teamId)],
);

/** Which alerts a channel takes: kinds (null: all), a minimum severity, domains (null: all) and a cooldown (D180). */
export const notificationRules = sqliteTable(
  "notification_rules",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    channelId: integer("channel_id")
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    kinds: text("kinds", { mode: "json" }).$type<string[] | null>(),
    minSeverity: text("min_severity").notNull(),
    domainIds: text("domain_ids", { mode: "json" }).$type<number[] | null>(),
    cooldownMinutes: integer("cooldown_minutes").notNull().default(60),
    createdAt: createdAt(),
  },
  (t) => [index("notification_rules_team_idx").on(t.teamId), index("notification_rules_channel_idx").on(t.channelId)],
);

/** Members who opted in to a members email channel; the one-click unsubscribe deletes the row (RFC 8058). */
export const channelSubscribers = sqliteTable(
  "channel_subscribers",
  {
    channelId: integer("channel_id")
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.userId] }), index("channel_subscribers_user_idx").on(t.teamId, t.userId)],
);

export const NOTIFICATION_STATUSES = ["collecting", "pending", "delivered", "failed", "skipped"] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/**
 * One message to one channel: a burst of alerts collected for a short window, or a test (D179). Its
 * attempts follow the webhook retry schedule; this table is the channel's delivery log.
 */
export const notificationMessages = sqliteTable(
  "notification_messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    channelId: integer("channel_id")
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["alerts", "test"] }).notNull(),
    status: text("status", { enum: NOTIFICATION_STATUSES }).notNull(),
    /** The grouping window closes then; later alerts start a new message. */
    sendAfter: ms("send_after").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextRetryAt: ms("next_retry_at"),
    /** An attempt in flight holds the message until then (a crash mid-send is retried after it). */
    leaseUntil: ms("lease_until"),
    /** Requests made by the last attempt (PagerDuty sends one event per incident; email one per recipient). */
    requests: integer("requests").notNull().default(0),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    responseExcerpt: text("response_excerpt"),
    /** Email: the recipients already sent to, so a retry after a partial failure never mails anyone twice. */
    sentTo: text("sent_to", { mode: "json" }).$type<string[]>(),
    deliveredAt: ms("delivered_at"),
    createdAt: createdAt(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("notification_messages_channel_idx").on(t.channelId, t.createdAt), index("notification_messages_due_idx").on(t.status, t.nextRetryAt)],
);

/** One alert opening or resolving in one message; unique per (channel, event) so a repeated fan-out adds nothing. */
export const notificationItems = sqliteTable(
  "notification_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    channelId: integer("channel_id")
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    /** Null when the cooldown suppressed it (kept so its resolve is not sent either). */
    messageId: integer("message_id").references(() => notificationMessages.id, { onDelete: "cascade" }),
    ruleId: integer("rule_id"),
    eventId: text("event_id").notNull(),
    alertId: integer("alert_id").notNull(),
    domainId: integer("domain_id"),
    action: text("action", { enum: ["trigger", "resolve"] }).notNull(),
    /** The alert as the event told it: kind, severity, title, domain name, subject, body. */
    alert: text("alert", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    /** PagerDuty: the incident this alert opened or closes (the id of the first alert of its group). */
    dedupKey: text("dedup_key"),
    suppressed: bool("suppressed").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("notification_items_event_uq").on(t.channelId, t.eventId),
    index("notification_items_message_idx").on(t.messageId),
    index("notification_items_alert_idx").on(t.channelId, t.alertId),
  ],
);

/** When a rule last sent an opening for (domain, kind): a new opening inside the cooldown is not sent (D180). */
export const notificationCooldowns = sqliteTable(
  "notification_cooldowns",
  {
    ruleId: integer("rule_id")
      .notNull()
      .references(() => notificationRules.id, { onDelete: "cascade" }),
    domainId: integer("domain_id").notNull(),
    kind: text("kind").notNull(),
    lastSentAt: ms("last_sent_at").notNull(),
    /** The message that sent it: alerts joining that same message are one burst, not a repeat. */
    messageId: integer("message_id"),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.domainId, t.kind] })],
);

/** Each attempt of a channel message, for its delivery log. */
export const notificationAttempts = sqliteTable(
  "notification_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    messageId: integer("message_id")
      .notNull()
      .references(() => notificationMessages.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    status: integer("status"),
    error: text("error"),
    durationMs: integer("duration_ms"),
    responseExcerpt: text("response_excerpt"),
    createdAt: createdAt(),
  },
  (t) => [index("notification_attempts_message_idx").on(t.messageId)],
);

/** A member's digest frequency in one team (weekly unless changed; D185). */
export const memberDigestPrefs = sqliteTable(
  "member_digest_prefs",
  {
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    frequency: text("frequency", { enum: DIGEST_FREQUENCIES }).notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] })],
);

/** One row per digest sent: the key (team, member, period) makes a second send impossible (D186). */
export const digestSends = sqliteTable(
  "digest_sends",
  {
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "2026-W48" for a weekly digest, "2026-11-28" for a daily one, in the team's time zone. */
    period: text("period").notNull(),
    status: text("status", { enum: ["sending", "sent", "failed"] }).notNull(),
    createdAt: createdAt(),
    sentAt: ms("sent_at"),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId, t.period] })],
);

/** The team's digest settings: its IANA time zone and the local hour digests go out (D185). */
export const teamDigestSettings = sqliteTable("team_digest_settings", {
  teamId: integer("team_id")
    .primaryKey()
    .references(() => teams.id, { onDelete: "cascade" }),
  timeZone: text("time_zone").notNull(),
  hour: integer("hour").notNull(),
  /** ISO weekday of the weekly digest (1 = Monday). */
  weekday: integer("weekday").notNull(),
  updatedAt: ms("updated_at").notNull(),
});

// ---- Hosted MTA-STS and BIMI (issue 32; docs/decisions.md D208-D229) ----

export const MTA_STS_MODES = ["testing", "enforce", "none"] as const;
export type MtaStsMode = (typeof MTA_STS_MODES)[number];
/** active: serving the policy; retiring: serving `mode: none` until the old max_age ran out (RFC 8461 §8.3). */
export const HOSTING_STATES = ["active", "retiring"] as const;
/** How the `_mta-sts` TXT id reaches DNS: a CNAME to the operator's zone (we change it), or a TXT the user edits. */
export const MTA_STS_ID_DELIVERY = ["cname", "txt"] as const;

/** A domain whose MTA-STS policy this service serves at https://mta-sts.<domain>/.well-known/mta-sts.txt. */
export const hostedMtaSts = sqliteTable(
  "hosted_mta_sts",
  {
    domainId: integer("domain_id")
      .primaryKey()
      .references(() => domains.id, { onDelete: "cascade" }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    /** The domain's name, lower-case: the Host header `mta-sts.<name>` finds the row. One team hosts a name. */
    domainName: text("domain_name").notNull(),
    state: text("state", { enum: HOSTING_STATES }).notNull(),
    mode: text("mode", { enum: MTA_STS_MODES }).notNull(),
    /** JSON array of `mx:` patterns, in order. */
    mxPatterns: text("mx_patterns").notNull(),
    maxAge: integer("max_age").notNull(),
    /** The policy id (RFC 8461 §3.1: 1-32 alphanumerics); changes with every policy change. */
    policyId: text("policy_id").notNull(),
    policyChangedAt: ms("policy_changed_at").notNull(),
    idDelivery: text("id_delivery", { enum: MTA_STS_ID_DELIVERY }).notNull(),
    /** What the last look at DNS found: the id receivers see, and when it was read. */
    publishedId: text("published_id"),
    publishedCheckedAt: ms("published_checked_at"),
    /** Retiring: when `mode: none` started, the largest max_age served before, and when the records may go. */
    retiringSince: ms("retiring_since"),
    retiringMaxAge: integer("retiring_max_age"),
    safeToRemoveAt: ms("safe_to_remove_at"),
    /** Cloudflare for SaaS custom hostname (mta-sts.<domain>): its id and the last state read from the API. */
    customHostnameId: text("custom_hostname_id"),
    hostnameStatus: text("hostname_status"),
    certificateStatus: text("certificate_status"),
    /** JSON: the validation records/errors the API last returned, shown to the user. */
    hostnameDetails: text("hostname_details"),
    hostnameCheckedAt: ms("hostname_checked_at"),
    createdAt: createdAt(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [uniqueIndex("hosted_mta_sts_name_uq").on(t.domainName), index("hosted_mta_sts_team_idx").on(t.teamId)],
);

export const MARK_KINDS = ["VMC", "CMC"] as const;

/** A BIMI logo (and optionally its mark certificate) this service serves for `l=` and `a=`. */
export const hostedBimi = sqliteTable(
  "hosted_bimi",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    domainId: integer("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    domainName: text("domain_name").notNull(),
    /** The BIMI selector (RFC-draft "default" unless the user uses another). */
    selector: text("selector").notNull(),
    /** The SVG as uploaded (validated against SVG Tiny PS before it is stored) and its SHA-256 (hex). */
    logoSvg: text("logo_svg"),
    logoSha256: text("logo_sha256"),
    logoUploadedAt: ms("logo_uploaded_at"),
    /** The PEM bundle (leaf first, then intermediates), uploaded or fetched from a URL the user gave. */
    certificatePem: text("certificate_pem"),
    certificateUrl: text("certificate_url"),
    certificateUploadedAt: ms("certificate_uploaded_at"),
    markKind: text("mark_kind", { enum: MARK_KINDS }),
    certificateNotAfter: ms("certificate_not_after"),
    /** JSON: the last validation report (logo and certificate), and when it was made. */
    validation: text("validation"),
    validatedAt: ms("validated_at"),
    createdAt: createdAt(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("hosted_bimi_name_selector_uq").on(t.domainName, t.selector),
    index("hosted_bimi_team_idx").on(t.teamId),
    index("hosted_bimi_not_after_idx").on(t.certificateNotAfter),
  ],
);

// ---- Audit log (issue 33; D230-D244) ----

export const AUDIT_ACTOR_KINDS = ["member", "token", "agent", "operator", "system"] as const;
export const AUDIT_FACES = ["api", "dashboard", "agent", "operator", "system"] as const;

/**
 * Who did what, append-only per team. An entry is written in the same D1 batch as the change it records;
 * `hash` chains the entries (SHA-256 over the previous hash and this entry) and is filled by the sealer
 * right after (null: not yet sealed). See docs/decisions.md (audit log).
 */
export const auditEntries = sqliteTable(
  "audit_entries",
  {
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    /** 1, 2, 3... per team, given inside the writing batch. */
    seq: integer("seq").notNull(),
    at: ms("at").notNull(),
    actorKind: text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    actorId: text("actor_id").notNull(),
    /** What a person reads: the member's address, "token <name> (<prefix>)", the agent client's name. */
    actorLabel: text("actor_label").notNull(),
    face: text("face", { enum: AUDIT_FACES }).notNull(),
    /** "domain.create", "token.revoke", "sign_in"... (docs/audit.md lists them). */
    verb: text("verb").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    /** A short summary of what changed; never a secret. */
    summary: text("summary").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    hash: text("hash"),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.seq] }),
    index("audit_entries_at_idx").on(t.teamId, t.at),
    index("audit_entries_actor_idx").on(t.teamId, t.actorId),
    index("audit_entries_verb_idx").on(t.teamId, t.verb),
    index("audit_entries_target_idx").on(t.teamId, t.targetType, t.targetId),
  ],
);

/** The sealed end of each team's chain, and the anchor left when retention removed the oldest entries. */
export const auditChainHeads = sqliteTable("audit_chain_heads", {
  teamId: integer("team_id")
    .primaryKey()
    .references(() => teams.id, { onDelete: "cascade" }),
  sealedSeq: integer("sealed_seq").notNull().default(0),
  headHash: text("head_hash"),
  /** Retention: entries up to this seq were removed; their last hash is the chain's new start. */
  prunedThroughSeq: integer("pruned_through_seq").notNull().default(0),
  prunedHash: text("pruned_hash"),
  updatedAt: ms("updated_at").notNull(),
});

// ---- OpenID Connect single sign-on (issue 33; D245-D259) ----

/** A team's OpenID provider. The client secret is sealed like webhook secrets (bound to the team). */
export const teamSso = sqliteTable("team_sso", {
  teamId: integer("team_id")
    .primaryKey()
    .references(() => teams.id, { onDelete: "cascade" }),
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  clientSecretEnc: text("client_secret_enc"),
  /** From the issuer's /.well-known/openid-configuration, read when saved (JSON of the endpoints used). */
  discovery: text("discovery").notNull(),
  discoveredAt: ms("discovered_at").notNull(),
  /** On: members in a verified covered domain may only sign in through the provider. */
  enforced: bool("enforced").notNull().default(false),
  /** New people from a covered domain join as viewers on their first sign-in. */
  autoJoin: bool("auto_join").notNull().default(false),
  createdAt: createdAt(),
  updatedAt: ms("updated_at").notNull(),
});

/** Email domains a team's provider covers; each proven by the same TXT verification as monitored domains. */
export const ssoDomains = sqliteTable(
  "sso_domains",
  {
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    verificationToken: text("verification_token").notNull(),
    verifiedAt: ms("verified_at"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.domain] }), index("sso_domains_domain_idx").on(t.domain)],
);

/** A sign-in through a provider in flight: state (stored as SHA-256), nonce and PKCE verifier; single use, 10 minutes. */
export const ssoLogins = sqliteTable(
  "sso_logins",
  {
    stateHash: text("state_hash").primaryKey(),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    nonce: text("nonce").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    /** SHA-256 of the random value in the browser's cookie: the callback must come from the browser that started. */
    browserHash: text("browser_hash").notNull(),
    next: text("next"),
    createdAt: createdAt(),
    expiresAt: ms("expires_at").notNull(),
    usedAt: ms("used_at"),
  },
  (t) => [index("sso_logins_expires_idx").on(t.expiresAt)],
);
