// Notification channel tools, read-only (issue 30: channels are added and changed on the dashboard or over
// REST): the channels with their rules, and one channel with its recent messages. A channel's secret target
// (chat webhook URL, PagerDuty routing key) is never in the views, only its hint (docs/decisions.md D178).
import { z } from "zod";
import { listChannels } from "../../services/notify/channels";
import { getChannelOverview } from "../../services/notify/channel-overview";
import { tool } from "../kit";
import { channelId } from "./ids";

export const notificationTools = [
  tool({
    name: "list_notification_channels",
    title: "List notification channels",
    description:
      "The team's channels that tell people about alerts (email, Slack, Teams, PagerDuty): id, kind, name, target_hint (never the secret URL or key), email confirmation state, enabled state, failure counters and rules (alert kinds, minimum severity, domains, cooldown). meta.limit is the plan's allowance. Channels are added and changed on the dashboard or over the REST API.",
    input: z.object({}),
    effect: "read",
    run: async ({ svc, ctx, team }) => {
      const { rows, limit } = await listChannels(svc, ctx, team.plan);
      return { data: rows, meta: { total: rows.length, limit } };
    },
  }),
  tool({
    name: "get_notification_channel",
    title: "A notification channel and its recent messages",
    description:
      "One channel with its rules (data.channel) and its newest messages (data.recent_messages): each a burst of alerts or a test, with status (collecting, pending, delivered, failed, skipped), alerts opened and resolved, attempts, the receiver's last status and answer excerpt, and the next retry. Use it to find out why a person was or was not told about an alert.",
    input: z.object({
      channel_id: channelId,
      messages: z.number().int().min(1).max(50).default(10).describe("How many recent messages, 1 to 50 (default 10)."),
    }),
    effect: "read",
    untrusted: ["recent_messages[].response_excerpt"],
    run: async ({ svc, ctx }, { channel_id, messages }) => ({ data: await getChannelOverview(svc, ctx, channel_id, messages) }),
  }),
];
