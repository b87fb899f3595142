// /domains/{domain}/mta-sts-hosting: hosted MTA-STS (issue 32 §1): status with the records to publish and
// their live state, turning on or changing the policy, the one-click enforce, and turning off (RFC 8461 §8.3).
import { createRoute, type z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { jsonBody } from "../../middleware/json-body";
import { enforceHosting } from "../../services/mta-sts-hosting/enforce";
import { putHosting } from "../../services/mta-sts-hosting/put";
import { retireHosting } from "../../services/mta-sts-hosting/retire";
import { getHostingStatus } from "../../services/mta-sts-hosting/status";
import { DomainParam, HostingBody, HostingStatusSchema, StatusQuery } from "./schemas";

const tags = ["MTA-STS hosting"];
const security = BEARER;
const path = "/domains/{domain}/mta-sts-hosting";
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const status = jsonContent(dataOf(HostingStatusSchema), "The hosting state, the records to publish and their live state.");

const get = createRoute({
  method: "get",
  path,
  tags,
  security,
  operationId: "getMtaStsHosting",
  summary: "Hosted MTA-STS: the policy served, the records to publish with their live state, the certificate",
  description:
    "Reads DNS now (the two records and the MX hosts) and the TLS reports of `days` for the enforce rule. `enabled: false` until hosting is turned on; the policy is served at `hosting.policy_url` once `mta-sts.<domain>` points here.",
  request: { params: DomainParam, query: StatusQuery },
  responses: { 200: status, ...errorResponses(...AUTH_ERRORS, 404, 422) },
});
const put = createRoute({
  method: "put",
  path,
  tags,
  security,
  operationId: "putMtaStsHosting",
  summary: "Turn MTA-STS hosting on, or change the hosted policy (a new id each time)",
  description:
    "A verified domain only (409 domain_not_verified); one team per name (409). The mx patterns default to the live MX hosts and must cover every one (422 on `mx`). `mode: enforce` is allowed only when the TLS reports show sessions and no failure (409 with the reason). Every policy change gets a new id (RFC 8461 §3.1); with `id_delivery: cname` the service publishes it, with `txt` you do. Also turns a retiring domain back on. 503 when DNS cannot be read.",
  middleware: [jsonBody()] as const,
  request: { params: DomainParam, body: body(HostingBody) },
  responses: {
    200: status,
    201: jsonContent(dataOf(HostingStatusSchema), "Hosting is on."),
    ...errorResponses(...AUTH_ERRORS, 400, 403, 404, 409, 413, 415, 422, 503),
  },
});
const enforce = createRoute({
  method: "post",
  path: `${path}/enforce`,
  tags,
  security,
  operationId: "enforceMtaStsHosting",
  summary: "Move the hosted policy from testing to enforce (the one click)",
  description:
    "Allowed when the TLS reports of the last `days` (default 14) show sessions and no failure, and the patterns cover every live MX host; otherwise 409 with the reason. Already enforcing: no change.",
  request: { params: DomainParam, query: StatusQuery },
  responses: { 200: status, ...errorResponses(...AUTH_ERRORS, 403, 404, 409, 422, 503) },
});
const remove = createRoute({
  method: "delete",
  path,
  tags,
  security,
  operationId: "retireMtaStsHosting",
  summary: "Turn MTA-STS hosting off (RFC 8461 §8.3: mode none first)",
  description:
    "Serves `mode: none` with a new id for at least the largest max_age served before; `hosting.retiring.safe_to_remove_at` says when both records may be deleted. The hostname is removed then, by the service. Idempotent while retiring.",
  request: { params: DomainParam },
  responses: { 200: status, ...errorResponses(...AUTH_ERRORS, 403, 404, 409) },
});

export const mtaStsHostingRoutes = () =>
  createRouter()
    .openapi(get, async (c) => {
      const { domain } = c.req.valid("param");
      return c.json({ data: await getHostingStatus(c.get("services"), c.get("ctx"), domain, c.req.valid("query").days) }, 200);
    })
    .openapi(put, async (c) => {
      const { domain } = c.req.valid("param");
      const { created } = await putHosting(c.get("services"), c.get("ctx"), domain, c.req.valid("json"));
      return c.json({ data: await getHostingStatus(c.get("services"), c.get("ctx"), domain) }, created ? 201 : 200);
    })
    .openapi(enforce, async (c) => {
      const { domain } = c.req.valid("param");
      const { days } = c.req.valid("query");
      await enforceHosting(c.get("services"), c.get("ctx"), domain, days);
      return c.json({ data: await getHostingStatus(c.get("services"), c.get("ctx"), domain, days) }, 200);
    })
    .openapi(remove, async (c) => {
      const { domain } = c.req.valid("param");
      await retireHosting(c.get("services"), c.get("ctx"), domain);
      return c.json({ data: await getHostingStatus(c.get("services"), c.get("ctx"), domain) }, 200);
    });
