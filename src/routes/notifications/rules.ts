// The rules of a channel: add one, delete one (docs/decisions.md D180). A channel holds at most 10.
import { createRoute, type z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { jsonBody } from "../../middleware/json-body";
import { addRule, deleteRule } from "../../services/notify/rules";
import { ChannelParams, NotificationRule, NotificationRuleBody, RuleParams } from "./schemas";

const tags = ["Notifications"];
const security = BEARER;
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

const add = createRoute({
  method: "post",
  path: "/notification-channels/{channel}/rules",
  tags,
  security,
  operationId: "addNotificationRule",
  summary: "Add a rule: which alerts (kinds, minimum severity, domains) go to this channel",
  description:
    "An alert goes to a channel once even when several of its rules match. Domain ids must be the team's (422 on `domain_ids` otherwise). 409 when the channel already holds 10 rules.",
  middleware: [jsonBody()] as const,
  request: { params: ChannelParams, body: body(NotificationRuleBody) },
  responses: {
    201: jsonContent(dataOf(NotificationRule), "The rule."),
    ...errorResponses(...AUTH_ERRORS, 400, 403, 404, 409, 413, 415, 422),
  },
});
const remove = createRoute({
  method: "delete",
  path: "/notification-channels/{channel}/rules/{rule}",
  tags,
  security,
  operationId: "deleteNotificationRule",
  summary: "Delete a rule of a channel",
  description: "A channel without rules receives no alerts (its test message still works).",
  request: { params: RuleParams },
  responses: { 204: { description: "Deleted." }, ...errorResponses(...AUTH_ERRORS, 403, 404) },
});

export const ruleRoutes = () =>
  createRouter()
    .openapi(add, async (c) => c.json({ data: await addRule(c.get("services"), c.get("ctx"), c.req.valid("param").channel, c.req.valid("json")) }, 201))
    .openapi(remove, async (c) => {
      const { channel, rule } = c.req.valid("param");
      await deleteRule(c.get("services"), c.get("ctx"), channel, rule);
      return c.body(null, 204);
    });
