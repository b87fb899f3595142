// A channel's delivery log: its messages newest first (a cursor, `before`) and one message with its attempts.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { getChannelMessage, listChannelMessages } from "../../services/notify/log";
import { ChannelParams, MessageListMeta, MessageParams, MessagesQuery, NotificationMessage, NotificationMessageDetail } from "./schemas";

const tags = ["Notifications"];
const security = BEARER;

const list = createRoute({
  method: "get",
  path: "/notification-channels/{channel}/messages",
  tags,
  security,
  operationId: "listNotificationMessages",
  summary: "The channel's delivery log, newest first",
  description:
    "Each message is one burst of alerts (or a test): its status, attempts, the receiver's last answer and the next retry. Page with `before` = meta.next_before: a cursor, so messages arriving meanwhile never shift a page.",
  request: { params: ChannelParams, query: MessagesQuery },
  responses: {
    200: jsonContent(z.object({ data: z.array(NotificationMessage), meta: MessageListMeta }), "A page of messages."),
    ...errorResponses(...AUTH_ERRORS, 404, 422),
  },
});
const get = createRoute({
  method: "get",
  path: "/notification-channels/{channel}/messages/{message}",
  tags,
  security,
  operationId: "getNotificationMessage",
  summary: "One message with its attempts and the alerts it carried",
  description: "Every attempt (status, error, duration, the start of the answer) and each alert the message opened or resolved.",
  request: { params: MessageParams },
  responses: { 200: jsonContent(dataOf(NotificationMessageDetail), "The message."), ...errorResponses(...AUTH_ERRORS, 404) },
});

export const messageRoutes = () =>
  createRouter()
    .openapi(list, async (c) => {
      const { rows, next_before } = await listChannelMessages(c.get("services"), c.get("ctx"), c.req.valid("param").channel, c.req.valid("query"));
      return c.json({ data: rows, meta: { next_before } }, 200);
    })
    .openapi(get, async (c) => {
      const { channel, message } = c.req.valid("param");
      return c.json({ data: await getChannelMessage(c.get("services"), c.get("ctx"), channel, message) }, 200);
    });
