// The channel's test button: a message that says it is a test, attempted at once; its outcome is the answer,
// and a retryable failure continues on the normal schedule. Does I/O (D1, DNS, HTTP, email, queue).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";
import { audit, batchable } from "../audit-when";
import { commit } from "../commit";
import { type ServiceContext, requireWrite } from "../context";
import { type MessageView, messageView } from "./channel-views";
import { channelRowInTeam } from "./channels";
import { sendNotification } from "./send";

export async function sendTestMessage(svc: Services, ctx: ServiceContext, channelId: number): Promise<MessageView> {
  requireWrite(ctx);
  const channel = await channelRowInTeam(svc, ctx.teamId, channelId);
  const now = svc.clock.now().getTime();
  const [[row]] = await commit(svc, [
    batchable(
      svc,
      svc.db.all<{ id: number }>(sql`
    INSERT INTO notification_messages (team_id, channel_id, kind, status, send_after, attempts, requests, created_at, updated_at)
    VALUES (${channel.teamId}, ${channel.id}, 'test', 'collecting', ${now}, 0, 0, ${now}, ${now}) RETURNING id`),
    ),
    audit(svc, ctx, {
      verb: "notification_channel.test",
      target: { type: "notification_channel", id: channel.id },
      summary: `test message to ${channel.kind} channel "${channel.name}"`,
    }),
  ]);
  if (!row) throw new Error("test message not written");
  const after = await sendNotification(svc, { teamId: channel.teamId, messageId: row.id });
  if (!after) throw new Error("test message not claimed");
  return messageView(after, { opened: 0, resolved: 0 });
}
