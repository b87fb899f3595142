// Domains: list, add, view, delete, verify ownership, queue a check, check history and diffs.
import { createRoute, type z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent, pageOf } from "../../lib/openapi";
import { PaginationQuery, pageMeta } from "../../lib/pagination";
import { jsonBody } from "../../middleware/json-body";
import { createDomain } from "../../services/domains/create-domain";
import { deleteDomain } from "../../services/domains/delete-domain";
import { getDomainDetail } from "../../services/domains/domain-detail";
import { listChecks, listDiffs } from "../../services/checks/history";
import { listDomains } from "../../services/domains/list-domains";
import { requestCheck } from "../../services/domains/request-check";
import { verifyDomain } from "../../services/domains/verify-domain";
import { domainView, reportAddress, verificationRecord } from "../../services/domains/views";
import { CheckRecord, CreateDomainBody, CreatedDomain, DiffRecord, Domain, DomainDetail, DomainParams, QueuedCheck, VerifyResult } from "./schemas";

const tags = ["Domains"];
const security = BEARER;

const list = createRoute({
  method: "get",
  path: "/domains",
  tags,
  security,
  operationId: "listDomains",
  description: "The team's monitored domains with their latest score, grade, DMARC policy and check times, newest first. Paginated with page and per_page.",
  summary: "List the team's domains",
  request: { query: PaginationQuery },
  responses: { 200: jsonContent(pageOf(Domain), "A page of domains."), ...errorResponses(...AUTH_ERRORS, 422) },
});
const create = createRoute({
  method: "post",
  path: "/domains",
  tags,
  security,
  operationId: "createDomain",
  description:
    "Adds a domain to the team (pending until its ownership TXT record is verified). The answer carries the exact record to publish; 409 if the domain is already in the team or the plan's domain allowance is used.",
  summary: "Add a domain; returns the TXT record that proves ownership",
  middleware: [jsonBody()] as const,
  request: { body: { required: true, content: { "application/json": { schema: CreateDomainBody } } } },
  responses: {
    201: jsonContent(dataOf(CreatedDomain), "The domain, its ownership record and DMARC report address."),
    ...errorResponses(...AUTH_ERRORS, 400, 403, 409, 413, 415, 422),
  },
});
const get = createRoute({
  method: "get",
  path: "/domains/{domain}",
  tags,
  security,
  operationId: "getDomain",
  description:
    "One domain with its latest stored posture: every part's record and status, findings, fixes to paste, the DMARC report address and verification instructions.",
  summary: "A domain with its latest posture, recommendations and exact DNS fixes",
  request: { params: DomainParams },
  responses: { 200: jsonContent(dataOf(DomainDetail), "The domain."), ...errorResponses(...AUTH_ERRORS, 404) },
});
const remove = createRoute({
  method: "delete",
  path: "/domains/{domain}",
  tags,
  security,
  operationId: "deleteDomain",
  description:
    "Stops monitoring a domain and deletes its checks, diffs, DKIM inventory, DMARC reports and alerts. Emits domain.deleted. 409 while the service hosts its MTA-STS policy: turn hosting off first (RFC 8461 §8.3).",
  summary: "Remove a domain and its history",
  request: { params: DomainParams },
  responses: { 204: { description: "Removed." }, ...errorResponses(...AUTH_ERRORS, 403, 404, 409) },
});
const verify = createRoute({
  method: "post",
  path: "/domains/{domain}/verify",
  tags,
  security,
  operationId: "verifyDomain",
  summary: "Look up the ownership TXT record now",
  description: "On success the domain is verified, domain.verified is emitted and the first check is queued. Already verified: 200 with verified true.",
  request: { params: DomainParams },
  responses: { 200: jsonContent(dataOf(VerifyResult), "The outcome of the lookup."), ...errorResponses(...AUTH_ERRORS, 403, 404, 503) },
});
const check = createRoute({
  method: "post",
  path: "/domains/{domain}/check",
  tags,
  security,
  operationId: "checkDomain",
  description:
    "Queues a check of a verified domain now (202 with the check id). The result appears in the check history and the domain view once the queue has run it.",
  summary: "Queue a posture check now",
  request: { params: DomainParams },
  responses: { 202: jsonContent(dataOf(QueuedCheck), "Queued."), ...errorResponses(...AUTH_ERRORS, 403, 404, 409) },
});
const history = createRoute({
  method: "get",
  path: "/domains/{domain}/checks",
  tags,
  security,
  operationId: "listDomainChecks",
  description: "The domain's checks, newest first: score, grade, status, trigger, stale parts and query counts.",
  summary: "Check history (score history), newest first",
  request: { params: DomainParams, query: PaginationQuery },
  responses: { 200: jsonContent(pageOf(CheckRecord), "A page of checks."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});
const changes = createRoute({
  method: "get",
  path: "/domains/{domain}/diffs",
  tags,
  security,
  operationId: "listDomainDiffs",
  description: "Every change a check found between two consecutive checks (category, field, before, after, severity), newest first.",
  summary: "Changes between consecutive checks, each with a severity, newest first",
  request: { params: DomainParams, query: PaginationQuery },
  responses: { 200: jsonContent(pageOf(DiffRecord), "A page of changes."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

export const domainRoutes = () =>
  createRouter()
    .openapi(list, async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listDomains(c.get("services"), c.get("ctx"), q);
      return c.json({ data: items, meta: pageMeta(q, total) }, 200);
    })
    .openapi(create, async (c) => {
      const svc = c.get("services");
      const row = await createDomain(svc, c.get("ctx"), c.req.valid("json"));
      const data = { ...domainView(row), verification: verificationRecord(row), dmarc_report_address: reportAddress(row, svc.config) };
      return c.json({ data }, 201);
    })
    .openapi(get, async (c) => {
      const data = await getDomainDetail(c.get("services"), c.get("ctx"), c.req.valid("param").domain);
      return c.json({ data: data as z.infer<typeof DomainDetail> }, 200);
    })
    .openapi(remove, async (c) => {
      await deleteDomain(c.get("services"), c.get("ctx"), c.req.valid("param").domain);
      return c.body(null, 204);
    })
    .openapi(verify, async (c) => {
      const out = await verifyDomain(c.get("services"), c.get("ctx"), c.req.valid("param").domain);
      return c.json({ data: { ...out, domain: domainView(out.domain) } }, 200);
    })
    .openapi(check, async (c) => {
      const data = await requestCheck(c.get("services"), c.get("ctx"), c.req.valid("param").domain);
      return c.json({ data }, 202);
    })
    .openapi(history, async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listChecks(c.get("services"), c.get("ctx"), c.req.valid("param").domain, q);
      return c.json({ data: items, meta: pageMeta(q, total) }, 200);
    })
    .openapi(changes, async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listDiffs(c.get("services"), c.get("ctx"), c.req.valid("param").domain, q);
      return c.json({ data: items as z.infer<typeof DiffRecord>[], meta: pageMeta(q, total) }, 200);
    });
