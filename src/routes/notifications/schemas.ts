// Request and response schemas of the notification channel routes (docs/decisions.md D176-D181, D190).
// A channel's secret target (chat webhook URL, PagerDuty routing key) is accepted here and never answered:
// responses carry only `target_hint` (D178).
import { z } from "@hono/zod-openapi";
import { SEVERITIES } from "../../core/types";
import { ALERT_KINDS } from "../../services/alerts/types";
import { MAX_COOLDOWN_MINUTES, RULES_PER_CHANNEL } from "../../services/notify/rules";

const dt = z.string().nullable().openapi({ format: "date-time" });
const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const ChannelParams = z.object({ channel: id.openapi({ param: { name: "channel", in: "path" }, example: 1 }) });
export const RuleParams = ChannelParams.extend({ rule: id.openapi({ param: { name: "rule", in: "path" }, example: 1 }) });
export const MessageParams = ChannelParams.extend({ message: id.openapi({ param: { name: "message", in: "path" }, example: 1 }) });

// ---- Rules ----

const kinds = z
  .array(z.enum(ALERT_KINDS))
  .max(ALERT_KINDS.length)
  .nullable()
  .openapi({ description: "Alert kinds the rule takes; null or empty: every kind.", example: ["drift", "dkim"] });
const minSeverity = z.enum(SEVERITIES).openapi({ description: "The least severe alert the rule takes (Critical is the most severe).", example: "High" });
const domainIds = z
  .array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER))
  .max(100)
  .nullable()
  .openapi({ description: "Domain ids of the team; null or empty: every domain.", example: [12] });
const cooldown = z
  .number()
  .int()
  .min(0)
  .max(MAX_COOLDOWN_MINUTES)
  .openapi({ description: "After an opening is sent for a (domain, kind), further openings of it inside this many minutes are not sent.", example: 30 });

export const NotificationRuleBody = z
  .object({
    kinds: kinds.optional(),
    min_severity: minSeverity.optional().openapi({ description: "Default Medium." }),
    domain_ids: domainIds.optional(),
    cooldown_minutes: cooldown.optional().openapi({ description: "Default 30." }),
  })
  .openapi("NotificationRuleInput", { example: { kinds: ["drift", "dkim"], min_severity: "High", domain_ids: null, cooldown_minutes: 30 } });

export const NotificationRule = z
  .object({
    id: z.number().int(),
    channel_id: z.number().int(),
    kinds: z.array(z.string()).nullable().openapi({ description: "Alert kinds; null: every kind." }),
    min_severity: z.string().openapi({ example: "High" }),
    domain_ids: z.array(z.number().int()).nullable().openapi({ description: "Domain ids; null: every domain." }),
    cooldown_minutes: z.number().int(),
    created_at: dt,
  })
  .openapi("NotificationRule", {
    example: {
      id: 4,
      channel_id: 2,
      kinds: ["drift", "dkim"],
      min_severity: "High",
      domain_ids: null,
      cooldown_minutes: 30,
      created_at: "2026-11-24T08:00:00.000Z",
    },
  });

// ---- Channels ----

const name = z.string().min(1).max(100).openapi({ example: "On-call" });
const rules = z
  .array(NotificationRuleBody)
  .max(RULES_PER_CHANNEL)
  .optional()
  .openapi({ description: `Up to ${RULES_PER_CHANNEL} rules; none given: one rule for every kind and domain (PagerDuty from High, others from Medium).` });
const chatUrl = (what: string, example: string) =>
  z
    .string()
    .min(1)
    .max(2048)
    .openapi({
      format: "uri",
      description: `The ${what}: https, not a private, loopback, link-local or metadata address. Sealed at rest and never shown again (only target_hint).`,
      example,
    });
const routingKey = z
  .string()
  .regex(/^[A-Za-z0-9]{32}$/, "must be the 32-character integration key of a PagerDuty Events API v2 integration")
  .openapi({ description: "The Events API v2 integration (routing) key. Sealed at rest and never shown again.", example: "R0123456789abcdefghijklmnopqrstu" });

const EmailChannelBody = z
  .object({
    kind: z.literal("email"),
    name,
    email_mode: z.enum(["members", "address"]).optional().openapi({
      description:
        "members: each member opts in on the dashboard; address: one outside address that confirms by a mailed link first. Default: address when one is given.",
    }),
    address: z.string().min(3).max(254).optional().openapi({ format: "email", description: "Only with email_mode address.", example: "oncall@acme.example" }),
    rules,
  })
  .openapi("EmailChannelInput");
const SlackChannelBody = z
  .object({ kind: z.literal("slack"), name, url: chatUrl("Slack incoming webhook URL", "https://hooks.slack.com/services/T000/B000/XXXX"), rules })
  .openapi("SlackChannelInput");
const TeamsChannelBody = z
  .object({
    kind: z.literal("teams"),
    name,
    url: chatUrl("Teams Workflows webhook URL", "https://prod-00.westus.logic.azure.com/workflows/abc/triggers/manual/paths/invoke"),
    rules,
  })
  .openapi("TeamsChannelInput");
const PagerDutyChannelBody = z.object({ kind: z.literal("pagerduty"), name, routing_key: routingKey, rules }).openapi("PagerDutyChannelInput");

export const CreateChannelBody = z
  .discriminatedUnion("kind", [EmailChannelBody, SlackChannelBody, TeamsChannelBody, PagerDutyChannelBody])
  .openapi("CreateNotificationChannel", {
    example: { kind: "slack", name: "#dmarc-alerts", url: "https://hooks.slack.com/services/T000/B000/XXXX", rules: [{ min_severity: "High" }] },
  });

export const UpdateChannelBody = z
  .object({
    name: name.optional(),
    enabled: z.boolean().optional().openapi({
      description: "true on a disabled channel clears disabled_at and disabled_reason and resets failure_count; false disables it.",
    }),
    url: chatUrl("new webhook URL (Slack or Teams channels)", "https://hooks.slack.com/services/T000/B000/YYYY").optional(),
    routing_key: routingKey.optional().openapi({ description: "A new routing key (PagerDuty channels)." }),
  })
  .openapi("UpdateNotificationChannel", { example: { enabled: true } });

export const NotificationChannel = z
  .object({
    id: z.number().int(),
    kind: z.enum(["email", "slack", "teams", "pagerduty"]),
    name: z.string(),
    target_hint: z
      .string()
      .nullable()
      .openapi({ description: "What may be shown of the secret target: the URL's host and last four characters, or a key's last four. Null for email." }),
    email: z
      .object({
        mode: z.enum(["members", "address"]),
        address: z.string().nullable(),
        confirmed: z.boolean().nullable().openapi({ description: "Address mode: whether the address confirmed (nothing is sent before). Null for members." }),
        subscribers: z.number().int().nullable().openapi({ description: "Members mode: members who opted in. Null for address." }),
      })
      .nullable()
      .openapi({ description: "Email channels only; null for the others." }),
    enabled: z.boolean(),
    failure_count: z.number().int().openapi({ description: "Failed messages in a row; the 20th disables the channel." }),
    disabled_at: dt,
    disabled_reason: z.string().nullable(),
    last_success_at: dt,
    last_failure_at: dt,
    created_at: dt,
    rules: z.array(NotificationRule),
  })
  .openapi("NotificationChannel", {
    example: {
      id: 2,
      kind: "slack",
      name: "#dmarc-alerts",
      target_hint: "hooks.slack.com/…XXXX",
      email: null,
      enabled: true,
      failure_count: 0,
      disabled_at: null,
      disabled_reason: null,
      last_success_at: "2026-11-24T08:00:02.000Z",
      last_failure_at: null,
      created_at: "2026-11-20T09:10:00.000Z",
      rules: [{ id: 4, channel_id: 2, kinds: null, min_severity: "High", domain_ids: null, cooldown_minutes: 30, created_at: "2026-11-20T09:10:00.000Z" }],
    },
  });

export const ChannelListMeta = z
  .object({
    total: z.number().int(),
    limit: z.number().int().openapi({ description: "The plan's allowance of channels." }),
  })
  .openapi("NotificationChannelListMeta");

// ---- The delivery log ----

export const MessagesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25).openapi({ description: "Messages per page, 1 to 100.", example: 25 }),
  before: id.optional().openapi({ description: "A message id: only older messages (meta.next_before of the previous page).", example: 120 }),
});

export const NotificationMessage = z
  .object({
    id: z.number().int(),
    channel_id: z.number().int(),
    kind: z.enum(["alerts", "test"]),
    status: z.enum(["collecting", "pending", "delivered", "failed", "skipped"]).openapi({
      description: "collecting: the burst window is open; pending: being sent or waiting for a retry; skipped: nothing was left to send.",
    }),
    alerts_opened: z.number().int(),
    alerts_resolved: z.number().int(),
    attempts: z.number().int(),
    requests: z.number().int().openapi({ description: "Outbound requests of the last attempt (PagerDuty: one per incident; email: one per recipient)." }),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    response_excerpt: z.string().nullable().openapi({ description: "The start of the receiver's last answer." }),
    next_retry_at: dt,
    delivered_at: dt,
    created_at: dt,
  })
  .openapi("NotificationMessage", {
    example: {
      id: 120,
      channel_id: 2,
      kind: "alerts",
      status: "delivered",
      alerts_opened: 3,
      alerts_resolved: 0,
      attempts: 1,
      requests: 1,
      response_status: 200,
      error: null,
      response_excerpt: "ok",
      next_retry_at: null,
      delivered_at: "2026-11-24T08:00:02.000Z",
      created_at: "2026-11-24T08:00:00.000Z",
    },
  });

export const NotificationMessageDetail = NotificationMessage.extend({
  attempts_log: z.array(
    z.object({
      attempt: z.number().int(),
      status: z.number().int().nullable(),
      error: z.string().nullable(),
      duration_ms: z.number().int().nullable(),
      response_excerpt: z.string().nullable(),
      at: dt,
    }),
  ),
  alerts: z
    .array(
      z.object({
        action: z.enum(["trigger", "resolve"]),
        alert: z
          .record(z.string(), z.unknown())
          .openapi({ description: "The alert as its event told it: id, kind, subject, severity, title, body, domain and when it opened or resolved." }),
      }),
    )
    .openapi({ description: "The alerts this message opened or resolved." }),
}).openapi("NotificationMessageDetail", {
  example: {
    id: 120,
    channel_id: 2,
    kind: "alerts",
    status: "delivered",
    alerts_opened: 1,
    alerts_resolved: 0,
    attempts: 1,
    requests: 1,
    response_status: 200,
    error: null,
    response_excerpt: "ok",
    next_retry_at: null,
    delivered_at: "2026-11-24T08:00:02.000Z",
    created_at: "2026-11-24T08:00:00.000Z",
    attempts_log: [{ attempt: 1, status: 200, error: null, duration_ms: 143, response_excerpt: "ok", at: "2026-11-24T08:00:02.000Z" }],
    alerts: [
      {
        action: "trigger",
        alert: {
          id: 77,
          kind: "drift",
          subject: "dmarc.p",
          severity: "High",
          title: "DMARC policy changed",
          body: null,
          domain: { id: 12, name: "acme.example" },
          at: "2026-11-24T07:59:58.000Z",
        },
      },
    ],
  },
});

export const MessageListMeta = z
  .object({ next_before: z.number().int().nullable().openapi({ description: "Pass as `before` for the next (older) page; null on the last page." }) })
  .openapi("NotificationMessageListMeta");
