// Intelligence routes: live posture of any domain, risk check of one address or a batch. Nothing stored.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { jsonBody } from "../../middleware/json-body";
import { domainIntel } from "../../services/intel/domain-intel";
import { checkEmail, checkEmailBatch } from "../../services/intel/emails";
import { checkSpf } from "../../services/intel/spf";
import { DomainQuery, IntelDomainFull, IntelDomainSummary } from "./domain-schemas";
import { EmailQuery, IntelEmailCheck, IntelEmailsRequest, IntelEmailsResult } from "./email-schemas";
import { spfRoute } from "./spf";

const TAGS = ["Intelligence"];

const domain = createRoute({
  method: "get",
  path: "/intel/domain",
  tags: TAGS,
  operationId: "getDomainIntel",
  description:
    "Analyzes any domain's SPF, DMARC, DKIM, BIMI, MTA-STS, TLS-RPT, DANE, MX and blocklist posture now, without adding it to the team. full=1 returns the whole analysis with findings and fixes.",
  security: BEARER,
  summary: "Live email-authentication posture of any domain (full=1: the complete analysis)",
  request: { query: DomainQuery },
  responses: {
    200: jsonContent(
      dataOf(z.discriminatedUnion("view", [IntelDomainSummary, IntelDomainFull])),
      "The summary, or with full=1 the complete analysis (IntelDomainAnalysis); `view` tells them apart.",
    ),
    ...errorResponses(...AUTH_ERRORS, 422, 503),
  },
});

const email = createRoute({
  method: "get",
  path: "/intel/email",
  tags: TAGS,
  operationId: "getEmailIntel",
  description:
    "Checks one email address: syntax, the domain's mail acceptance (MX, null MX), disposable and role accounts, with a score and the reasons behind it.",
  security: BEARER,
  summary: "Risk check of one address: syntax, MX, provider, free/disposable/role flags, domain policy, score",
  request: { query: EmailQuery },
  responses: { 200: jsonContent(dataOf(IntelEmailCheck), "The address check."), ...errorResponses(...AUTH_ERRORS, 422, 503) },
});

const emails = createRoute({
  method: "post",
  path: "/intel/emails",
  tags: TAGS,
  operationId: "checkEmails",
  description: "Checks up to 100 email addresses in one call; every distinct domain is looked up once. Allowed for read-only tokens (it changes nothing).",
  security: BEARER,
  summary: "Risk check of up to 100 addresses; each domain is resolved once",
  middleware: [jsonBody()] as const,
  request: { body: { required: true, content: { "application/json": { schema: IntelEmailsRequest } } } },
  responses: {
    200: jsonContent(dataOf(IntelEmailsResult), "One result per address, in input order."),
    ...errorResponses(...AUTH_ERRORS, 400, 413, 415, 422, 503),
  },
});

export const intelRoutes = () =>
  createRouter()
    .openapi(domain, async (c) => {
      const q = c.req.valid("query");
      const full = q.full === true;
      return c.json({ data: await domainIntel(c.get("services"), q.domain, full) }, 200);
    })
    .openapi(email, async (c) => c.json({ data: await checkEmail(c.get("services"), c.req.valid("query").email) }, 200))
    .openapi(emails, async (c) => c.json({ data: await checkEmailBatch(c.get("services"), c.req.valid("json").emails) }, 200))
    .openapi(spfRoute, async (c) => c.json({ data: await checkSpf(c.get("services"), c.req.valid("query")) }, 200));
