// One channel with the start of its delivery log, for the faces that show both at once (the agent tool).
// Team-scoped like its parts; another team's channel is a 404. Does I/O (D1).
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import type { ChannelView, MessageView } from "./channel-views";
import { getChannel } from "./channels";
import { listChannelMessages } from "./log";

export interface ChannelOverview {
  channel: ChannelView;
  recent_messages: MessageView[];
}

export async function getChannelOverview(svc: Services, ctx: ServiceContext, channelId: number, recent = 10): Promise<ChannelOverview> {
  const channel = await getChannel(svc, ctx, channelId);
  const { rows } = await listChannelMessages(svc, ctx, channelId, { limit: recent });
  return { channel, recent_messages: rows };
}
