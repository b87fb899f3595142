// Routing of alert events to channels (docs/decisions.md D179, D180), run by the fan-out of each outbox
// event. An opening goes to each enabled channel whose rules take it (once per channel, the first matching
// rule deciding its cooldown); a resolve goes where its opening was sent, and nowhere else. Items join the
// channel's message that is still collecting (a burst becomes one message) or start one, which is sent when
// its window closes. Every step is safe to repeat: an item is unique per (channel, event). Does I/O (D1, queue).
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import { notificationChannels, notificationCooldowns, notificationItems, notificationRules } from "../../db/schema";
import type { Services } from "../../services";
import { ruleMatches } from "./rules";

/** How long a message collects before it is sent: a DNS change's alerts arrive within seconds of each other. */
export const GROUP_WINDOW_SECONDS = 30;

const AlertData = z.object({
  alert: z.object({
    id: z.number().int().positive(),
    kind: z.string(),
    subject: z.string(),
    severity: z.string(),
    title: z.string(),
    body: z.string().nullish(),
    resolved_at: z.string().optional(),
  }),
  domain: z.object({ id: z.number().int(), name: z.string() }).nullish(),
});

export interface RoutedEvent {
  id: string;
  teamId: number;
  domainId: number | null;
  type: string;
  payload: unknown;
  createdAt: Date;
}

export interface RouteResult {
  /** Items written by this run (a repeat writes none). */
  items: number;
  suppressed: number;
  /** Messages this run started, each nudged to send when its window closes. */
  started: number[];
}

export async function routeAlertEvent(svc: Services, event: RoutedEvent): Promise<RouteResult> {
  const out: RouteResult = { items: 0, suppressed: 0, started: [] };
  if (event.type !== "alert.created" && event.type !== "alert.resolved") return out;
  const parsed = AlertData.safeParse((event.payload as { data?: unknown } | null)?.data);
  if (!parsed.success) return out; // an alert event always carries these (src/services/alerts); anything else is not routed
  const { alert, domain } = parsed.data;
  const now = svc.clock.now();
  const snapshot = {
    id: alert.id,
    kind: alert.kind,
    subject: alert.subject,
    severity: alert.severity,
    title: alert.title,
    body: alert.body ?? null,
    domain: domain ?? null,
    at: event.type === "alert.resolved" ? (alert.resolved_at ?? event.createdAt.toISOString()) : event.createdAt.toISOString(),
  };
  const base = { teamId: event.teamId, eventId: event.id, alertId: alert.id, domainId: domain?.id ?? null, alert: snapshot };

  if (event.type === "alert.resolved") {
    // Where the opening was sent (not suppressed): chat and mail say "resolved", PagerDuty resolves.
    const opened = await svc.db
      .selectDistinct({ channelId: notificationItems.channelId })
      .from(notificationItems)
      .innerJoin(notificationChannels, eq(notificationChannels.id, notificationItems.channelId))
      .where(
        and(
          eq(notificationItems.teamId, event.teamId),
          eq(notificationItems.alertId, alert.id),
          eq(notificationItems.action, "trigger"),
          eq(notificationItems.suppressed, false),
          isNotNull(notificationItems.messageId),
          eq(notificationChannels.enabled, true),
        ),
      );
    for (const { channelId } of opened) await place(svc, out, channelId, { ...base, action: "resolve", ruleId: null }, now);
    return out;
  }

  const rules = await svc.db
    .select({ rule: notificationRules, channel: notificationChannels })
    .from(notificationRules)
    .innerJoin(notificationChannels, eq(notificationChannels.id, notificationRules.channelId))
    .where(and(eq(notificationRules.teamId, event.teamId), eq(notificationChannels.enabled, true)))
    .orderBy(notificationRules.id);
  const seen = new Set<number>();
  for (const { rule, channel } of rules) {
    if (seen.has(channel.id)) continue;
    if (!ruleMatches(rule, { kind: alert.kind, severity: alert.severity, domainId: domain?.id ?? null })) continue;
    // Nothing goes to an outside address before it confirmed (D177).
    if (channel.kind === "email" && channel.emailMode === "address" && channel.confirmedAt === null) continue;
    seen.add(channel.id);
    await place(svc, out, channel.id, { ...base, action: "trigger", ruleId: rule.id }, now, rule);
  }
  return out;
}

type ItemDraft = {
  teamId: number;
  eventId: string;
  alertId: number;
  domainId: number | null;
  alert: Record<string, unknown>;
  action: "trigger" | "resolve";
  ruleId: number | null;
};

/** Puts one item into the channel's collecting message (or a new one), or records it as suppressed by the cooldown. */
async function place(
  svc: Services,
  out: RouteResult,
  channelId: number,
  item: ItemDraft,
  now: Date,
  rule?: { id: number; cooldownMinutes: number },
): Promise<void> {
  const nowMs = now.getTime();
  const exists = await svc.db
    .select({ id: notificationItems.id })
    .from(notificationItems)
    .where(and(eq(notificationItems.channelId, channelId), eq(notificationItems.eventId, item.eventId)))
    .limit(1);
  if (exists.length > 0) return; // a repeated fan-out

  // Join the collecting message, or start one only when there is none: each a single statement, so an item
  // never joins a message the sender already claimed, and concurrent fan-outs of one burst (a queue batch
  // runs several at once) share one message instead of starting one each.
  let messageId: number | null = null;
  for (let tries = 0; tries < 3 && messageId === null; tries++) {
    const joined = await svc.db.all<{ id: number; message_id: number }>(sql`
      INSERT INTO notification_items (team_id, channel_id, message_id, rule_id, event_id, alert_id, domain_id, action, alert, suppressed, created_at)
      SELECT ${item.teamId}, ${channelId}, m.id, ${item.ruleId}, ${item.eventId}, ${item.alertId}, ${item.domainId}, ${item.action},
             ${JSON.stringify(item.alert)}, 0, ${nowMs}
      FROM notification_messages m
      WHERE m.channel_id = ${channelId} AND m.kind = 'alerts' AND m.status = 'collecting' AND m.send_after > ${nowMs}
      ORDER BY m.id DESC LIMIT 1
      ON CONFLICT (channel_id, event_id) DO NOTHING
      RETURNING id, message_id`);
    messageId = joined[0]?.message_id ?? null;
    if (messageId !== null) break;
    const started = await svc.db.all<{ id: number }>(sql`
      INSERT INTO notification_messages (team_id, channel_id, kind, status, send_after, attempts, requests, created_at, updated_at)
      SELECT ${item.teamId}, ${channelId}, 'alerts', 'collecting', ${nowMs + GROUP_WINDOW_SECONDS * 1000}, 0, 0, ${nowMs}, ${nowMs}
      WHERE NOT EXISTS (
        SELECT 1 FROM notification_messages
        WHERE channel_id = ${channelId} AND kind = 'alerts' AND status = 'collecting' AND send_after > ${nowMs}
      )
      RETURNING id`);
    const fresh = started[0]?.id;
    if (fresh !== undefined) {
      out.started.push(fresh);
      await nudge(svc, item.teamId, fresh, GROUP_WINDOW_SECONDS);
    }
    // Either way the next round joins the one collecting message (ours or the one another run started).
  }
  if (messageId === null) {
    // Already placed by a concurrent run of the same event (the unique key refused it), or the channel's
    // messages kept closing under us: nothing more to do; the sweep sends what was started.
    return;
  }
  if (rule && item.action === "trigger" && rule.cooldownMinutes > 0) {
    // A cooldown per (rule, domain, kind): an opening sent by an EARLIER message within the cooldown means
    // this one is flapping, so it is kept (for its resolve to be skipped too) but not sent. Openings in the
    // message this one joined are one burst, not a repeat; checked after joining, so a burst fanned out
    // concurrently is never split.
    const [cd] = await svc.db
      .select()
      .from(notificationCooldowns)
      .where(
        and(
          eq(notificationCooldowns.ruleId, rule.id),
          eq(notificationCooldowns.domainId, item.domainId ?? 0),
          eq(notificationCooldowns.kind, String(item.alert.kind)),
        ),
      );
    if (cd !== undefined && cd.lastSentAt.getTime() > nowMs - rule.cooldownMinutes * 60_000 && cd.messageId !== messageId) {
      await svc.db
        .update(notificationItems)
        .set({ suppressed: true, messageId: null })
        .where(and(eq(notificationItems.channelId, channelId), eq(notificationItems.eventId, item.eventId)));
      out.suppressed++;
      return;
    }
  }
  out.items++;
  if (rule && item.action === "trigger")
    await svc.db
      .insert(notificationCooldowns)
      .values({ ruleId: rule.id, domainId: item.domainId ?? 0, kind: String(item.alert.kind), lastSentAt: now, messageId })
      .onConflictDoUpdate({
        target: [notificationCooldowns.ruleId, notificationCooldowns.domainId, notificationCooldowns.kind],
        set: { lastSentAt: now, messageId },
      });
}

/** A send message for when the window closes; a lost one is recovered by the notification sweep (sweep.ts). */
export async function nudge(svc: Services, teamId: number, messageId: number, delaySeconds: number): Promise<void> {
  try {
    await svc.enqueue.deliveries([{ kind: "notify", team_id: teamId, message_id: messageId }], { delaySeconds });
  } catch (error) {
    console.warn(
      JSON.stringify({ level: "warn", msg: "notify enqueue failed; the notification sweep will send it", message_id: messageId, error: String(error) }),
    );
  }
}
