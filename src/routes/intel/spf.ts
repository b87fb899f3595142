// GET /intel/spf: the route definition (the handler is registered in ./index.ts).
import { createRoute } from "@hono/zod-openapi";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { SpfCheckSchema, SpfQuery } from "./spf-schemas";

export const spfRoute = createRoute({
  method: "get",
  path: "/intel/spf",
  tags: ["Intelligence"],
  operationId: "checkSpf",
  description:
    "Evaluates SPF for one sending IP as a receiver would (check_host(), RFC 7208 §4): the result, the mechanism that matched, the exp= explanation on fail, the DNS lookup counts and the path through include and redirect. A DNS failure inside the evaluation is the result temperror; 503 only when no DNS resolver answered at all. GET, so read-only tokens may call it.",
  security: BEARER,
  summary: "SPF result for a sending IP: matched mechanism, explanation, lookup counts and include/redirect path",
  request: { query: SpfQuery },
  responses: { 200: jsonContent(dataOf(SpfCheckSchema), "The SPF evaluation."), ...errorResponses(...AUTH_ERRORS, 422, 503) },
});
