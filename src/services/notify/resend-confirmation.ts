// The "send the confirmation again" action of an address channel, for a member's request (REST, dashboard):
// a write, so a read-only credential is refused; answers the channel as it stands. sendConfirmation itself
// takes a team id because channel creation calls it too (D177). Does I/O (D1, email).
import type { Services } from "../../services";
import { audit } from "../audit-when";
import { commit } from "../commit";
import { type ServiceContext, requireWrite } from "../context";
import type { ChannelView } from "./channel-views";
import { getChannel, sendConfirmation } from "./channels";

export async function resendConfirmation(svc: Services, ctx: ServiceContext, channelId: number): Promise<ChannelView> {
  requireWrite(ctx);
  await sendConfirmation(svc, ctx.teamId, channelId);
  // A mail sent, not a row changed: recorded once it was accepted (docs/decisions.md D239).
  const channel = await getChannel(svc, ctx, channelId);
  await commit(svc, [
    audit(svc, ctx, {
      verb: "notification_channel.resend_confirmation",
      target: { type: "notification_channel", id: channelId },
      summary: `confirmation mailed again to ${channel.email?.address ?? "the channel's address"} for "${channel.name}"`,
    }),
  ]);
  return channel;
}
