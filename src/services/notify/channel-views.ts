// API shapes of notification channels, rules and the channel delivery log. No I/O.
import type { notificationAttempts, notificationChannels, notificationMessages, notificationRules } from "../../db/schema";
import { iso } from "../../lib/time";

export type ChannelRow = typeof notificationChannels.$inferSelect;
export type RuleRow = typeof notificationRules.$inferSelect;
export type MessageRow = typeof notificationMessages.$inferSelect;
export type AttemptRow = typeof notificationAttempts.$inferSelect;

export function ruleView(r: RuleRow) {
  return {
    id: r.id,
    channel_id: r.channelId,
    kinds: r.kinds ?? null,
    min_severity: r.minSeverity,
    domain_ids: r.domainIds ?? null,
    cooldown_minutes: r.cooldownMinutes,
    created_at: iso(r.createdAt),
  };
}
export type RuleView = ReturnType<typeof ruleView>;

/** Where an email channel stands: members who opted in, or an address waiting for (or past) its confirmation. */
function emailState(c: ChannelRow, subscribers: number) {
  if (c.kind !== "email") return null;
  return {
    mode: c.emailMode ?? "members",
    address: c.address ?? null,
    confirmed: c.emailMode === "address" ? c.confirmedAt !== null : null,
    subscribers: c.emailMode === "members" ? subscribers : null,
  };
}

export function channelView(c: ChannelRow, rules: RuleRow[], subscribers = 0) {
  return {
    id: c.id,
    kind: c.kind,
    name: c.name,
    target_hint: c.targetHint ?? null,
    email: emailState(c, subscribers),
    enabled: c.enabled,
    failure_count: c.failureCount,
    disabled_at: iso(c.disabledAt),
    disabled_reason: c.disabledReason ?? null,
    last_success_at: iso(c.lastSuccessAt),
    last_failure_at: iso(c.lastFailureAt),
    created_at: iso(c.createdAt),
    rules: rules.map(ruleView),
  };
}
export type ChannelView = ReturnType<typeof channelView>;

export function messageView(m: MessageRow, items: { opened: number; resolved: number }) {
  return {
    id: m.id,
    channel_id: m.channelId,
    kind: m.kind,
    status: m.status,
    alerts_opened: items.opened,
    alerts_resolved: items.resolved,
    attempts: m.attempts,
    requests: m.requests,
    response_status: m.lastStatus ?? null,
    error: m.lastError ?? null,
    response_excerpt: m.responseExcerpt ?? null,
    next_retry_at: m.status === "pending" ? iso(m.nextRetryAt) : null,
    delivered_at: iso(m.deliveredAt),
    created_at: iso(m.createdAt),
  };
}
export type MessageView = ReturnType<typeof messageView>;

export function attemptView(a: AttemptRow) {
  return {
    attempt: a.attempt,
    status: a.status ?? null,
    error: a.error ?? null,
    duration_ms: a.durationMs ?? null,
    response_excerpt: a.responseExcerpt ?? null,
    at: iso(a.createdAt),
  };
}
export type AttemptView = ReturnType<typeof attemptView>;
