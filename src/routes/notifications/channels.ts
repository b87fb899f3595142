// Notification channels: list, create, view, change, delete, test, and the confirmation mail of an address
// channel (docs/decisions.md D176-D178). The secret target goes in, only its hint comes out.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { jsonBody } from "../../middleware/json-body";
import { createChannel, deleteChannel, getChannel, listChannels, updateChannel } from "../../services/notify/channels";
import { resendConfirmation } from "../../services/notify/resend-confirmation";
import { sendTestMessage } from "../../services/notify/test-message";
import { ChannelListMeta, ChannelParams, CreateChannelBody, NotificationChannel, NotificationMessage, UpdateChannelBody } from "./schemas";

const tags = ["Notifications"];
const security = BEARER;
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

const list = createRoute({
  method: "get",
  path: "/notification-channels",
  tags,
  security,
  operationId: "listNotificationChannels",
  summary: "List the team's notification channels; meta.limit is the plan's allowance",
  description:
    "Every channel of the team (email, Slack, Teams, PagerDuty) with its rules, oldest first; not paginated, the plan caps the count (meta.limit). Secret targets are never shown, only target_hint.",
  responses: {
    200: jsonContent(z.object({ data: z.array(NotificationChannel), meta: ChannelListMeta }), "The channels."),
    ...errorResponses(...AUTH_ERRORS),
  },
});
const create = createRoute({
  method: "post",
  path: "/notification-channels",
  tags,
  security,
  operationId: "createNotificationChannel",
  summary: "Add a channel (email, Slack, Teams or PagerDuty) with its rules",
  description:
    "The body is discriminated by `kind`. Slack and Teams URLs follow the webhook rules: https, never a private, loopback, link-local or metadata address, by name or by what it resolves to (422 on `url`). An email channel to an outside address mails it a confirmation link and sends nothing else before it is confirmed. 409 past the plan's allowance; 503 when DNS cannot be reached, no secret key is configured, or links cannot be made.",
  middleware: [jsonBody()] as const,
  request: { body: body(CreateChannelBody) },
  responses: {
    201: jsonContent(dataOf(NotificationChannel), "The channel."),
    ...errorResponses(...AUTH_ERRORS, 400, 403, 409, 413, 415, 422, 503),
  },
});
const get = createRoute({
  method: "get",
  path: "/notification-channels/{channel}",
  tags,
  security,
  operationId: "getNotificationChannel",
  summary: "One channel with its rules",
  description: "One channel: kind, name, target_hint, email state, rules, enabled state and failure counters.",
  request: { params: ChannelParams },
  responses: { 200: jsonContent(dataOf(NotificationChannel), "The channel."), ...errorResponses(...AUTH_ERRORS, 404) },
});
const update = createRoute({
  method: "patch",
  path: "/notification-channels/{channel}",
  tags,
  security,
  operationId: "updateNotificationChannel",
  summary: "Rename, enable or disable a channel, or replace its URL or routing key",
  description: "Re-enabling resets the failure count. A new URL is checked as on creation.",
  middleware: [jsonBody()] as const,
  request: { params: ChannelParams, body: body(UpdateChannelBody) },
  responses: {
    200: jsonContent(dataOf(NotificationChannel), "The channel."),
    ...errorResponses(...AUTH_ERRORS, 400, 403, 404, 413, 415, 422, 503),
  },
});
const remove = createRoute({
  method: "delete",
  path: "/notification-channels/{channel}",
  tags,
  security,
  operationId: "deleteNotificationChannel",
  summary: "Delete a channel, its rules and its delivery log",
  description: "Deletes the channel with its rules, subscriptions and messages.",
  request: { params: ChannelParams },
  responses: { 204: { description: "Deleted." }, ...errorResponses(...AUTH_ERRORS, 403, 404) },
});
const test = createRoute({
  method: "post",
  path: "/notification-channels/{channel}/test",
  tags,
  security,
  operationId: "testNotificationChannel",
  summary: "Send a test message to this channel now",
  description:
    "The first attempt is made during the request; the message shows its outcome. A retryable failure continues on the retry schedule, as for webhook endpoints.",
  request: { params: ChannelParams },
  responses: { 202: jsonContent(dataOf(NotificationMessage), "The test message."), ...errorResponses(...AUTH_ERRORS, 403, 404) },
});
const confirmation = createRoute({
  method: "post",
  path: "/notification-channels/{channel}/confirmation",
  tags,
  security,
  operationId: "resendNotificationConfirmation",
  summary: "Mail the confirmation link of an address channel again",
  description:
    "A new link replaces the old one (valid 7 days). 409 when the channel is not an email channel to an address, or the address already confirmed; 503 when the mail cannot be sent.",
  request: { params: ChannelParams },
  responses: { 202: jsonContent(dataOf(NotificationChannel), "The channel; the mail is on its way."), ...errorResponses(...AUTH_ERRORS, 403, 404, 409, 503) },
});

export const channelRoutes = () =>
  createRouter()
    .openapi(list, async (c) => {
      const { rows, limit } = await listChannels(c.get("services"), c.get("ctx"), c.get("auth").team.plan);
      return c.json({ data: rows, meta: { total: rows.length, limit } }, 200);
    })
    .openapi(create, async (c) => {
      return c.json({ data: await createChannel(c.get("services"), c.get("ctx"), c.get("auth").team.plan, c.req.valid("json")) }, 201);
    })
    .openapi(get, async (c) => c.json({ data: await getChannel(c.get("services"), c.get("ctx"), c.req.valid("param").channel) }, 200))
    .openapi(update, async (c) => {
      const data = await updateChannel(c.get("services"), c.get("ctx"), c.req.valid("param").channel, c.req.valid("json"));
      return c.json({ data }, 200);
    })
    .openapi(remove, async (c) => {
      await deleteChannel(c.get("services"), c.get("ctx"), c.req.valid("param").channel);
      return c.body(null, 204);
    })
    .openapi(test, async (c) => c.json({ data: await sendTestMessage(c.get("services"), c.get("ctx"), c.req.valid("param").channel) }, 202))
    .openapi(confirmation, async (c) => c.json({ data: await resendConfirmation(c.get("services"), c.get("ctx"), c.req.valid("param").channel) }, 202));
