// One attempt of a notification message (docs/decisions.md D179, D181): claim it (a lease, so two consumers
// never send it twice), render it for its channel, send, record the attempt, and follow the webhook rules for
// what comes next: retry on the same schedule, fail, or disable the channel after 20 failures in a row (or
// at once on 410 Gone). Does I/O (D1, DNS, HTTP, email, queue).
import { and, eq, sql } from "drizzle-orm";
import { alertMail } from "../../core/notify/alert-mail";
import { type PagerDutyIncident, pagerDutyEvent } from "../../core/notify/pagerduty";
import { slackMessage } from "../../core/notify/slack";
import { teamsMessage } from "../../core/notify/teams";
import type { NotificationBatch, NotificationItem, NotifiedAlert } from "../../core/notify/types";
import { attemptDelivery, type Classification, classifyResponse, MAX_ATTEMPTS, nextRetryDelaySeconds, outcomeOf } from "../../core/webhooks";
import {
  channelSubscribers,
  memberships,
  notificationAttempts,
  notificationChannels,
  notificationItems,
  notificationMessages,
  teams,
  users,
} from "../../db/schema";
import type { Services } from "../../services";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import { systemContext } from "../context";
import { notifyOwner } from "../notifications/notify-owner";
import { DISABLE_AFTER_FAILURES } from "../webhooks/outcome";
import { checkTarget } from "../webhooks/target";
import type { ChannelRow, MessageRow } from "./channel-views";
import { workOrigin } from "./links";
import { nudge } from "./route";
import { openTarget } from "./sealed-target";
import { sendMail } from "./send-mail";
import { listUnsubscribeHeaders, unsubscribeUrl } from "./unsubscribe";

export const USER_AGENT = "EmailAuthMonitor-Notifications/1.0";
/** An attempt holds its message this long; a crash mid-send is picked up by the sweep after it. */
export const SEND_LEASE_MS = 120_000;
/** A send message may arrive this much before the message is due and still send it. */
export const EARLY_TOLERANCE_MS = 5_000;
/** Longest delay of one queue message (the older documented queue maximum, 12 h); the sweep covers the rest. */
const QUEUE_MAX_DELAY_SECONDS = 43_200;
const EXCERPT = 1_000;

interface Outcome {
  verdict: Classification;
  status: number | null;
  error: string | null;
  durationMs: number | null;
  excerpt: string | null;
  requests: number;
  sentTo?: string[];
  /** Nothing was attempted: the message is marked skipped and the channel's streak does not move. */
  skip?: boolean;
}

/** Claims and sends one message of the team, when it is due; null when there is nothing to do now. */
export async function sendNotification(svc: Services, ref: { teamId: number; messageId: number }): Promise<MessageRow | null> {
  const now = svc.clock.now().getTime();
  const claimed = await svc.db.all<{ id: number }>(sql`
    UPDATE notification_messages SET status = 'pending', lease_until = ${now + SEND_LEASE_MS}, updated_at = ${now}
    WHERE id = ${ref.messageId} AND team_id = ${ref.teamId} AND (
      (status = 'collecting' AND send_after <= ${now + EARLY_TOLERANCE_MS})
      OR (status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now}) AND (next_retry_at IS NULL OR next_retry_at <= ${now + EARLY_TOLERANCE_MS}))
    ) RETURNING id`);
  if (claimed.length === 0) {
    await carryOn(svc, ref, now);
    return null; // not due, being sent, or done
  }
  const message = await svc.db.query.notificationMessages.findFirst({ where: eq(notificationMessages.id, ref.messageId) });
  const channel = await svc.db.query.notificationChannels.findFirst({
    where: and(eq(notificationChannels.id, message?.channelId ?? 0), eq(notificationChannels.teamId, ref.teamId)),
  });
  if (!message || !channel) return null; // deleted with its channel
  if (!channel.enabled && message.kind !== "test")
    return settle(svc, message, channel, { verdict: "final", status: null, error: "channel disabled", durationMs: null, excerpt: null, requests: 0 }, true);
  const outcome = await attempt(svc, channel, message);
  return settle(svc, message, channel, outcome, outcome.skip === true);
}

/**
 * A send message that came before its message is due (a queue delivers a delayed message early, or a long
 * retry wait was split into hops) is sent on with the rest of the wait, so the message still goes when it is
 * due instead of waiting for the sweep. One that finds its message sent, in flight or gone is dropped.
 */
async function carryOn(svc: Services, ref: { teamId: number; messageId: number }, now: number): Promise<void> {
  const m = await svc.db.query.notificationMessages.findFirst({
    where: and(eq(notificationMessages.id, ref.messageId), eq(notificationMessages.teamId, ref.teamId)),
    columns: { status: true, sendAfter: true, nextRetryAt: true, leaseUntil: true },
  });
  if (!m) return;
  const due = m.status === "collecting" ? m.sendAfter.getTime() : m.status === "pending" && m.leaseUntil === null ? (m.nextRetryAt?.getTime() ?? null) : null;
  if (due === null || due <= now + EARLY_TOLERANCE_MS) return;
  await nudge(svc, ref.teamId, ref.messageId, Math.min(Math.ceil((due - now) / 1000), QUEUE_MAX_DELAY_SECONDS));
}

async function attempt(svc: Services, channel: ChannelRow, message: MessageRow): Promise<Outcome> {
  const none = { status: null, durationMs: null, excerpt: null, requests: 0 };
  const origin = workOrigin(svc);
  if (origin === null) return { ...none, verdict: "retry", error: "links cannot be made: set SITE_URL" };
  const batch = await batchOf(svc, channel, message, origin);
  // Every item of it was held back by the cooldown after the message started: nothing to send, and nothing counts.
  if (batch.items.length === 0 && !batch.test)
    return { ...none, verdict: "final", error: null, excerpt: "nothing to send: every alert was in its cooldown", skip: true };
  if (channel.kind === "email") return sendEmail(svc, channel, message, batch);
  const secret = channel.targetEnc ? await openTarget(svc, channel.targetEnc, channel.id) : null;
  if (secret === null) return { ...none, verdict: "retry", error: "channel secret unavailable (WEBHOOK_SECRET_KEY missing or changed)" };
  if (channel.kind === "pagerduty") return sendPagerDuty(svc, channel, batch, secret);
  // The target is checked again before every attempt: DNS may have changed since it was saved (D14).
  const target = await checkTarget(svc, secret);
  if (!target.ok) {
    const transient = target.error.code === "dns_temperror" || target.error.code === "unresolvable";
    return { ...none, verdict: transient ? "retry" : "final", error: `target refused: ${target.error.message}` };
  }
  const body = JSON.stringify(channel.kind === "slack" ? slackMessage(batch) : teamsMessage(batch));
  return post(svc, target.value.href, body);
}

async function post(svc: Services, url: string, body: string): Promise<Outcome> {
  const result = await attemptDelivery(url, { headers: { "content-type": "application/json", "user-agent": USER_AGENT }, body }, svc.fetch, {
    clock: svc.clock,
  });
  const verdict = classifyResponse(outcomeOf(result));
  const error =
    result.status === null
      ? `${result.error === "timeout" ? "timeout" : "network error"}: ${result.errorMessage ?? ""}`.trim()
      : verdict === "delivered"
        ? null
        : `receiver answered ${result.status}`;
  return { verdict, status: result.status, error, durationMs: result.durationMs, excerpt: result.responseBody.slice(0, EXCERPT) || null, requests: 1 };
}

/**
 * PagerDuty (Events API v2): one event per incident. A burst's openings on one domain form one incident whose
 * dedup_key is the id of its first alert (a single alert's incident is keyed by its own id); an incident is
 * resolved when every alert in it has resolved, so incidents close themselves (D181). Re-sending an event
 * with the same dedup_key is harmless, so a retry sends the whole message again.
 */
async function sendPagerDuty(svc: Services, channel: ChannelRow, batch: NotificationBatch & { rows: ItemRow[] }, routingKey: string): Promise<Outcome> {
  const incidents: PagerDutyIncident[] = [];
  const triggers = batch.rows.filter((r) => r.action === "trigger");
  const byDomain = new Map<string, ItemRow[]>();
  for (const r of triggers) byDomain.set(String(r.domainId ?? "team"), [...(byDomain.get(String(r.domainId ?? "team")) ?? []), r]);
  // A burst across many domains is one incident, not one page per domain: it keeps on-call sane and a
  // message within PagerDuty's rate limit (about 120 events a minute per routing key, D181).
  const merged = byDomain.size > PD_MAX_INCIDENTS_PER_MESSAGE;
  const groups = merged ? [triggers] : [...byDomain.values()];
  for (const group of groups) {
    const key = group.find((r) => r.dedupKey !== null)?.dedupKey ?? String(Math.min(...group.map((r) => r.alertId)));
    // By the message (and the group's domain), never by a list of ids: a burst's group may hold hundreds of
    // items and D1 binds at most 100 parameters in one statement.
    const domainId = group[0]?.domainId ?? null;
    await svc.db.run(sql`
      UPDATE notification_items SET dedup_key = ${key}
      WHERE message_id = ${batch.messageId} AND action = 'trigger' AND suppressed = 0
        ${merged ? sql`` : domainId === null ? sql`AND domain_id IS NULL` : sql`AND domain_id = ${domainId}`}`);
    incidents.push({ action: "trigger", dedupKey: key, items: group.map(toItem) });
  }
  const resolves = batch.rows.filter((r) => r.action === "resolve");
  const keys = new Map<string, ItemRow[]>();
  for (const r of resolves) {
    const [opened] = await svc.db
      .select({ dedupKey: notificationItems.dedupKey })
      .from(notificationItems)
      .where(and(eq(notificationItems.channelId, channel.id), eq(notificationItems.alertId, r.alertId), eq(notificationItems.action, "trigger")))
      .limit(1);
    const key = opened?.dedupKey ?? null;
    if (key !== null) keys.set(key, [...(keys.get(key) ?? []), r]);
  }
  for (const [key, group] of keys) {
    // Resolved when no alert of the incident is still open (an alert deleted with its domain is not open).
    const open = await svc.db.all<{ id: number }>(sql`
      SELECT a.id FROM notification_items i JOIN alerts a ON a.id = i.alert_id
      WHERE i.channel_id = ${channel.id} AND i.dedup_key = ${key} AND i.action = 'trigger' AND a.resolved_at IS NULL
      LIMIT 1`);
    if (open.length === 0) incidents.push({ action: "resolve", dedupKey: key, items: group.map(toItem) });
  }
  if (incidents.length === 0) return { verdict: "delivered", status: null, error: null, durationMs: 0, excerpt: "no incident to open or resolve", requests: 0 };
  let last: Outcome = { verdict: "delivered", status: null, error: null, durationMs: 0, excerpt: null, requests: 0 };
  let requests = 0;
  for (const incident of incidents) {
    const event = pagerDutyEvent(incident, routingKey, { siteUrl: batch.siteUrl, team: batch.team });
    const o = await post(svc, svc.config.pagerDutyEventsUrl, JSON.stringify(event));
    requests++;
    last = { ...o, durationMs: (last.durationMs ?? 0) + (o.durationMs ?? 0) };
    if (o.verdict !== "delivered") break; // the rest go with the retry; PagerDuty de-duplicates by dedup_key
  }
  return { ...last, requests };
}

/** A message opens at most this many PagerDuty incidents; a burst over more domains becomes one incident. */
export const PD_MAX_INCIDENTS_PER_MESSAGE = 10;

/** Email: one mail per recipient, each with its own one-click unsubscribe (RFC 8058); a retry skips those already sent. */
async function sendEmail(svc: Services, channel: ChannelRow, message: MessageRow, batch: NotificationBatch): Promise<Outcome> {
  const recipients = await recipientsOf(svc, channel);
  const done = new Set(message.sentTo ?? []);
  const sentTo = [...done];
  let requests = 0;
  for (const r of recipients) {
    if (done.has(r.address)) continue;
    const url = await unsubscribeUrl(svc, {
      purpose: "channel",
      teamId: channel.teamId,
      channelId: channel.id,
      userId: r.userId,
      address: r.userId === null ? r.address : null,
    });
    const mail = alertMail(batch, { unsubscribeUrl: url, preferencesUrl: `${batch.siteUrl}/notifications` });
    const sent = await sendMail(svc, { to: r.address, ...mail, headers: listUnsubscribeHeaders(url) });
    requests++;
    if (!sent.ok) {
      await svc.db.update(notificationMessages).set({ sentTo }).where(eq(notificationMessages.id, message.id));
      return { verdict: sent.transient ? "retry" : "final", status: null, error: sent.error, durationMs: null, excerpt: null, requests, sentTo };
    }
    sentTo.push(r.address);
  }
  const excerpt = recipients.length === 0 ? "no recipient: no member has opted in" : `sent to ${sentTo.length} recipient${sentTo.length === 1 ? "" : "s"}`;
  return { verdict: "delivered", status: null, error: null, durationMs: null, excerpt, requests, sentTo };
}

async function recipientsOf(svc: Services, channel: ChannelRow): Promise<Array<{ address: string; userId: number | null }>> {
  if (channel.emailMode === "address") return channel.address !== null && channel.confirmedAt !== null ? [{ address: channel.address, userId: null }] : [];
  // Members who opted in and are still in the team.
  const rows = await svc.db
    .select({ address: users.email, userId: users.id })
    .from(channelSubscribers)
    .innerJoin(memberships, and(eq(memberships.teamId, channelSubscribers.teamId), eq(memberships.userId, channelSubscribers.userId)))
    .innerJoin(users, eq(users.id, channelSubscribers.userId))
    .where(and(eq(channelSubscribers.channelId, channel.id), eq(channelSubscribers.teamId, channel.teamId)))
    .orderBy(users.id);
  return rows;
}

type ItemRow = typeof notificationItems.$inferSelect;

const toItem = (r: ItemRow): NotificationItem => ({ action: r.action, alert: r.alert as unknown as NotifiedAlert });

async function batchOf(svc: Services, channel: ChannelRow, message: MessageRow, origin: string): Promise<NotificationBatch & { rows: ItemRow[] }> {
  const team = await svc.db.query.teams.findFirst({ where: eq(teams.id, channel.teamId), columns: { id: true, name: true } });
  const rows = await svc.db
    .select()
    .from(notificationItems)
    .where(and(eq(notificationItems.messageId, message.id), eq(notificationItems.suppressed, false)))
    .orderBy(notificationItems.id);
  return {
    messageId: message.id,
    team: { id: channel.teamId, name: team?.name ?? "" },
    siteUrl: origin,
    items: rows.map(toItem),
    rows,
    ...(message.kind === "test" ? { test: true } : {}),
  };
}

/** Records the attempt and decides what comes next for the message and the channel's streak. */
async function settle(svc: Services, message: MessageRow, channel: ChannelRow, o: Outcome, skipped: boolean): Promise<MessageRow> {
  const now = svc.clock.now();
  const attemptNo = message.attempts + (skipped ? 0 : 1);
  const delay = o.verdict === "retry" ? nextRetryDelaySeconds(attemptNo, null, Math.random, now) : null;
  const retrying = o.verdict === "retry" && delay !== null && attemptNo < MAX_ATTEMPTS;
  const delivered = o.verdict === "delivered";
  const error = o.verdict === "retry" && !retrying ? `${o.error ?? "failed"}; all ${attemptNo} attempts spent` : o.error;
  const status = skipped ? "skipped" : delivered ? "delivered" : retrying ? "pending" : "failed";
  const batch = [];
  if (!skipped)
    batch.push(
      svc.db.insert(notificationAttempts).values({
        teamId: message.teamId,
        messageId: message.id,
        attempt: attemptNo,
        status: o.status,
        error,
        durationMs: o.durationMs,
        responseExcerpt: o.excerpt,
        createdAt: now,
      }),
    );
  const [updated] = await svc.db
    .update(notificationMessages)
    .set({
      status,
      attempts: attemptNo,
      requests: message.requests + o.requests,
      lastStatus: o.status,
      lastError: error,
      responseExcerpt: o.excerpt,
      leaseUntil: null,
      nextRetryAt: retrying && delay !== null ? new Date(now.getTime() + delay * 1000) : null,
      deliveredAt: delivered ? now : null,
      updatedAt: now,
      ...(o.sentTo ? { sentTo: o.sentTo } : {}),
    })
    .where(eq(notificationMessages.id, message.id))
    .returning();
  for (const s of batch) await s;
  if (retrying && delay !== null) await nudge(svc, message.teamId, message.id, Math.min(delay, QUEUE_MAX_DELAY_SECONDS));
  if (!skipped && !retrying) await moveStreak(svc, channel, delivered ? "success" : o.verdict === "disable" ? "gone" : "failure", now);
  return updated ?? message;
}

/** A final outcome moves the channel's streak: success resets it; the 20th failure in a row, or a 410, disables the channel. */
async function moveStreak(svc: Services, channel: ChannelRow, change: "success" | "failure" | "gone", now: Date): Promise<void> {
  if (change === "success") {
    await svc.db.update(notificationChannels).set({ failureCount: 0, lastSuccessAt: now }).where(eq(notificationChannels.id, channel.id));
    return;
  }
  const reason = change === "gone" ? "gone" : "consecutive_failures";
  const disables = sql`enabled = 1 AND (${change === "gone"} OR failure_count + 1 >= ${DISABLE_AFTER_FAILURES})`;
  // The service's entry, before the update and on the same condition: only the failure that disables an enabled channel is recorded.
  const entry = auditWhen(
    svc,
    systemContext(channel.teamId),
    {
      verb: "notification_channel.disable",
      target: { type: "notification_channel", id: channel.id },
      summary: `${channel.kind} channel "${channel.name}" disabled by the service: ${change === "gone" ? "the receiver answered 410 Gone" : `${DISABLE_AFTER_FAILURES} failed messages in a row`}`,
    },
    { when: sql`EXISTS (SELECT 1 FROM notification_channels WHERE id = ${channel.id} AND ${disables})` },
  );
  const [, [after]] = await commit(svc, [
    entry,
    svc.db
      .update(notificationChannels)
      .set({
        failureCount: sql`${notificationChannels.failureCount} + 1`,
        lastFailureAt: now,
        enabled: sql`CASE WHEN ${change === "gone"} OR failure_count + 1 >= ${DISABLE_AFTER_FAILURES} THEN 0 ELSE enabled END`,
        disabledAt: sql`CASE WHEN enabled = 1 AND (${change === "gone"} OR failure_count + 1 >= ${DISABLE_AFTER_FAILURES}) THEN ${now.getTime()} ELSE disabled_at END`,
        disabledReason: sql`CASE WHEN enabled = 1 AND (${change === "gone"} OR failure_count + 1 >= ${DISABLE_AFTER_FAILURES}) THEN ${reason} ELSE disabled_reason END`,
      })
      .where(eq(notificationChannels.id, channel.id))
      .returning({ enabled: notificationChannels.enabled }),
  ]);
  if (channel.enabled && after?.enabled === false) {
    try {
      await notifyOwner(svc, {
        teamId: channel.teamId,
        kind: "notification_channel_disabled",
        subject: `Notification channel "${channel.name}" was disabled`,
        body:
          `The ${channel.kind} channel "${channel.name}" (id ${channel.id}) ${change === "gone" ? "answered 410 Gone" : `failed ${DISABLE_AFTER_FAILURES} messages in a row`} and has been disabled.\n` +
          `Fix the receiver, then enable it again on the Notifications page or with PATCH /api/v1/notification-channels/${channel.id} {"enabled": true}.\n`,
      });
    } catch (error) {
      console.error(JSON.stringify({ level: "error", msg: "owner notice failed", channel_id: channel.id, error: String(error) }));
    }
  }
}
