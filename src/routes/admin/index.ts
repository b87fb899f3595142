// The admin API (docs/decisions.md D2): teams, tokens, revocation and plan changes. Every /admin path is
// a 404 unless the ADMIN_TOKEN secret is set; then it requires `Authorization: Bearer <ADMIN_TOKEN>`.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { createRouter } from "../../app-router";
import type { AppEnv } from "../../context";
import { PLANS, TOKEN_SCOPES } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { timingSafeEqual } from "../../lib/crypto";
import { dataOf, errorResponses } from "../../lib/openapi";
import { ADMIN_FAILURES_PER_MINUTE, clientOf, recordFailure, refuseIfBlocked } from "../../middleware/failure-gate";
import { jsonBody } from "../../middleware/json-body";
import { MIN_ADMIN_TOKEN_LENGTH } from "../../config";
import { changePlan, createTeam } from "../../services/teams/teams";
import { issueToken, revokeToken } from "../../services/teams/tokens";
import { operatorContext } from "../../services/audit/origin";
import { registerReportMoves } from "./report-moves";

export const adminGate = createMiddleware<AppEnv>(async (c, next) => {
  const { adminToken: expected, adminTokenTooShort } = c.get("services").config;
  if (adminTokenTooShort) {
    console.error(JSON.stringify({ level: "error", msg: `ADMIN_TOKEN is shorter than ${MIN_ADMIN_TOKEN_LENGTH} characters; the admin API refuses to run` }));
    throw new ApiError(503, "dependency_unavailable", `The admin API is off: ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters.`);
  }
  if (!expected) throw new ApiError(404, "not_found", "Route not found.");
  refuseIfBlocked("admin", clientOf(c));
  const header = c.req.header("authorization") ?? "";
  const presented = /^Bearer (.+)$/.exec(header)?.[1] ?? "";
  if (!timingSafeEqual(presented, expected)) {
    await recordFailure(c, "admin", ADMIN_FAILURES_PER_MINUTE);
    throw new ApiError(401, "unauthenticated", "Missing or invalid admin token.");
  }
  await next();
});

const Id = z.object({ team: z.coerce.number().int().positive() });
const TokenView = z.object({
  id: z.number().int(),
  token: z.string().openapi({ description: "Shown once; only its SHA-256 is stored." }),
  prefix: z.string(),
  scope: z.enum(TOKEN_SCOPES),
  name: z.string(),
  created_at: z.string(),
});
const TeamView = z.object({ id: z.number().int(), name: z.string(), plan: z.enum(PLANS), owner_email: z.string(), created_at: z.string() });
const ERRORS = errorResponses(400, 401, 404, 415, 422);
const ADMIN_SECURITY = [{ adminToken: [] }];

const createTeamRoute = createRoute({
  method: "post",
  path: "/teams",
  tags: ["Admin"],
  operationId: "createTeam",
  description: "Creates a team on a plan with its owner's address, and issues a full and a read-only token (each shown once).",
  summary: "Create a team with a full and a read-only token",
  security: ADMIN_SECURITY,
  middleware: [jsonBody()],
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            name: z.string().trim().min(1).max(200),
            plan: z.enum(PLANS),
            owner_email: z.email().max(254),
          }),
        },
      },
    },
  },
  responses: {
    201: {
      description: "Team created with a full and a read-only token.",
      content: { "application/json": { schema: dataOf(z.object({ team: TeamView, tokens: z.object({ full: TokenView, read_only: TokenView }) })) } },
    },
    ...ERRORS,
  },
});

const createTokenRoute = createRoute({
  method: "post",
  path: "/teams/{team}/tokens",
  tags: ["Admin"],
  operationId: "createToken",
  description: "Issues a named token with the full or read_only scope for a team (shown once; only its SHA-256 is stored).",
  summary: "Issue a token for a team",
  security: ADMIN_SECURITY,
  middleware: [jsonBody()],
  request: {
    params: Id,
    body: { required: true, content: { "application/json": { schema: z.object({ scope: z.enum(TOKEN_SCOPES), name: z.string().trim().min(1).max(200) }) } } },
  },
  responses: { 201: { description: "Token issued.", content: { "application/json": { schema: dataOf(TokenView) } } }, ...ERRORS },
});

const revokeTokenRoute = createRoute({
  method: "delete",
  path: "/tokens/{token_id}",
  tags: ["Admin"],
  operationId: "revokeToken",
  description: "Revokes a token; the next request that presents it is refused.",
  summary: "Revoke a token (effective immediately)",
  security: ADMIN_SECURITY,
  request: { params: z.object({ token_id: z.coerce.number().int().positive() }) },
  responses: { 204: { description: "Revoked; effective immediately." }, ...ERRORS },
});

const changePlanRoute = createRoute({
  method: "patch",
  path: "/teams/{team}",
  tags: ["Admin"],
  operationId: "changePlan",
  description: "Moves a team to another plan; limits, quota and check interval follow at once.",
  summary: "Change a team's plan",
  security: ADMIN_SECURITY,
  middleware: [jsonBody()],
  request: { params: Id, body: { required: true, content: { "application/json": { schema: z.object({ plan: z.enum(PLANS) }) } } } },
  responses: { 200: { description: "Plan changed.", content: { "application/json": { schema: dataOf(TeamView) } } }, ...ERRORS },
});

export function adminRoutes() {
  const r = createRouter();
  r.use("*", adminGate);
  // The audit log names the operator with the call's client address and user agent (docs/audit.md "Verbs").
  const operator = (c: Context<AppEnv>) => (team: number) => operatorContext(team, c.req.raw.headers);
  r.openapi(createTeamRoute, async (c) => c.json({ data: await createTeam(c.get("services"), c.req.valid("json"), operator(c)) }, 201));
  r.openapi(createTokenRoute, async (c) => {
    const { scope, name } = c.req.valid("json");
    const team = c.req.valid("param").team;
    return c.json({ data: await issueToken(c.get("services"), team, scope, name, "operator", operator(c)(team)) }, 201);
  });
  r.openapi(revokeTokenRoute, async (c) => {
    await revokeToken(c.get("services"), c.req.valid("param").token_id, operator(c));
    return c.body(null, 204);
  });
  r.openapi(changePlanRoute, async (c) => {
    const team = c.req.valid("param").team;
    return c.json({ data: await changePlan(c.get("services"), team, c.req.valid("json").plan, operator(c)(team)) }, 200);
  });
  registerReportMoves(r);
  r.all("*", () => {
    throw notFound("Route");
  });
  return r;
}
