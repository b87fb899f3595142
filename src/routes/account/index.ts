// GET /me: the token's team, plan, limits, scope and usage this month.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { getAccount } from "../../services/teams/account";

export const Account = z
  .object({
    team: z.object({ id: z.number().int(), name: z.string(), plan: z.enum(["starter", "pro", "enterprise"]), owner_email: z.string() }),
    plan: z.enum(["starter", "pro", "enterprise"]),
    limits: z.object({
      requests_per_minute: z.number().int(),
      requests_per_month: z.number().int(),
      webhook_endpoints: z.number().int(),
      notification_channels: z.number().int().openapi({ description: "Notification channels (email, Slack, Teams, PagerDuty) the plan allows." }),
      domains: z.number().int().openapi({ description: "Monitored domains the plan allows." }),
      check_interval_hours: z.number().int(),
    }),
    token: z.object({ id: z.number().int(), name: z.string(), scope: z.enum(["full", "read_only"]), prefix: z.string() }),
    usage: z.object({ requests_this_month: z.number().int(), requests_remaining_this_month: z.number().int() }),
  })
  .openapi("Account", {
    example: {
      team: { id: 7, name: "Acme", plan: "pro", owner_email: "ops@acme.example" },
      plan: "pro",
      limits: { requests_per_minute: 300, requests_per_month: 100_000, webhook_endpoints: 5, notification_channels: 10, domains: 100, check_interval_hours: 6 },
      token: { id: 12, name: "CI", scope: "full", prefix: "eam_3hT9xQ2a" },
      usage: { requests_this_month: 1_234, requests_remaining_this_month: 98_766 },
    },
  });

const me = createRoute({
  method: "get",
  path: "/me",
  tags: ["Account"],
  operationId: "getAccount",
  description:
    "Who the calling token belongs to: the team, its plan and limits, the token's scope, and this month's request usage. A cheap way to check a token works.",
  summary: "The team, plan, limits and usage of the calling token",
  security: BEARER,
  responses: { 200: jsonContent(dataOf(Account), "The account."), ...errorResponses(...AUTH_ERRORS) },
});

export const accountRoutes = () =>
  createRouter().openapi(me, (c) => {
    const { team, token, rate } = c.get("auth");
    return c.json({ data: getAccount({ team, token, quotaUsed: rate?.quotaUsed ?? 0 }) }, 200);
  });
