// A channel's delivery log: its messages newest first (with how many alerts each opened or resolved) and one
// message's attempts. Team-scoped; another team's channel is a 404. Does I/O (D1).
import { and, desc, eq, inArray, lt, sql } from "drizzle-orm";
import { notificationAttempts, notificationItems, notificationMessages } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { type AttemptView, attemptView, type MessageView, messageView } from "./channel-views";
import { channelRowInTeam } from "./channels";

export interface LogPage {
  rows: MessageView[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_before: number | null;
}

export async function listChannelMessages(
  svc: Services,
  ctx: ServiceContext,
  channelId: number,
  q: { limit?: number; before?: number } = {},
): Promise<LogPage> {
  await channelRowInTeam(svc, ctx.teamId, channelId);
  const limit = Math.min(Math.max(q.limit ?? 25, 1), 100);
  const rows = await svc.db
    .select()
    .from(notificationMessages)
    .where(
      and(
        eq(notificationMessages.teamId, ctx.teamId),
        eq(notificationMessages.channelId, channelId),
        q.before !== undefined ? lt(notificationMessages.id, q.before) : undefined,
      ),
    )
    .orderBy(desc(notificationMessages.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const ids = page.map((m) => m.id);
  const counts =
    ids.length === 0
      ? []
      : await svc.db
          .select({ messageId: notificationItems.messageId, action: notificationItems.action, n: sql<number>`COUNT(*)` })
          .from(notificationItems)
          .where(inArray(notificationItems.messageId, ids))
          .groupBy(notificationItems.messageId, notificationItems.action);
  const of = (id: number, action: string) => Number(counts.find((c) => c.messageId === id && c.action === action)?.n ?? 0);
  return {
    rows: page.map((m) => messageView(m, { opened: of(m.id, "trigger"), resolved: of(m.id, "resolve") })),
    next_before: rows.length > limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

export async function getChannelMessage(
  svc: Services,
  ctx: ServiceContext,
  channelId: number,
  messageId: number,
): Promise<MessageView & { attempts_log: AttemptView[]; alerts: Array<{ action: "trigger" | "resolve"; alert: Record<string, unknown> }> }> {
  await channelRowInTeam(svc, ctx.teamId, channelId);
  const m = await svc.db.query.notificationMessages.findFirst({
    where: and(eq(notificationMessages.id, messageId), eq(notificationMessages.channelId, channelId), eq(notificationMessages.teamId, ctx.teamId)),
  });
  if (!m) throw notFound("Message");
  const [items, attempts] = await Promise.all([
    svc.db.select().from(notificationItems).where(eq(notificationItems.messageId, m.id)).orderBy(notificationItems.id),
    svc.db.select().from(notificationAttempts).where(eq(notificationAttempts.messageId, m.id)).orderBy(notificationAttempts.attempt),
  ]);
  const opened = items.filter((i) => i.action === "trigger").length;
  return {
    ...messageView(m, { opened, resolved: items.length - opened }),
    attempts_log: attempts.map(attemptView),
    alerts: items.map((i) => ({ action: i.action, alert: i.alert })),
  };
}
