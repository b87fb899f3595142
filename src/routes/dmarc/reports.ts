// GET /domains/{domain}/dmarc/reports and /dmarc/reports/{report}: the accepted aggregate reports. Route definitions and schemas.
import { createRoute, z } from "@hono/zod-openapi";
import { AUTH_ERRORS, BEARER, errorResponses, jsonContent, pageOf } from "../../lib/openapi";
import { PageMeta, PaginationQuery } from "../../lib/pagination";
import { DomainParam, ReportParams } from "./params";

const PASS_FAIL = "Messages passing DMARC (aligned SPF or aligned DKIM, RFC 7489 §6.6.2) and the rest.";

const ReportSummary = z
  .object({
    id: z.number().int(),
    org_name: z.string().openapi({ description: "The reporting organisation." }),
    report_id: z.string().openapi({ description: "The reporter's id of the report." }),
    date_begin: z.string().openapi({ description: "Start of the reported period." }),
    date_end: z.string(),
    messages: z.number().int(),
    pass: z.number().int().openapi({ description: PASS_FAIL }),
    fail: z.number().int(),
    received_at: z.string(),
  })
  .openapi("DmarcReportSummary", {
    example: {
      id: 42,
      org_name: "google.com",
      report_id: "13877430251622218521",
      date_begin: "2026-11-23T00:00:00.000Z",
      date_end: "2026-11-23T23:59:59.000Z",
      messages: 123,
      pass: 120,
      fail: 3,
      received_at: "2026-11-24T06:12:09.000Z",
    },
  });

const AuthResult = z.object({ domain: z.string().nullable(), result: z.string().nullable(), aligned: z.boolean() });

const ReportRecord = z.object({
  source_ip: z.string(),
  count: z.number().int().openapi({ description: "Messages." }),
  disposition: z.string().nullable().openapi({ description: "What the receiver did: none, quarantine or reject." }),
  header_from: z.string().nullable(),
  dkim: AuthResult.extend({ selector: z.string().nullable() }).openapi({
    description: "The DKIM result reported (aligned: the policy-evaluated DKIM passed).",
  }),
  spf: AuthResult.openapi({ description: "The SPF result reported (aligned: the policy-evaluated SPF passed)." }),
  dmarc: z.enum(["pass", "fail"]),
});

const ReportDetail = ReportSummary.extend({
  email: z.string().nullable().openapi({ description: "The reporter's contact address." }),
  policy_published: z
    .object({
      domain: z.string(),
      p: z.string().nullable(),
      sp: z.string().nullable(),
      np: z.string().nullable(),
      adkim: z.string().nullable(),
      aspf: z.string().nullable(),
      pct: z.number().nullable(),
      fo: z.string().nullable(),
      testing: z.string().nullable(),
      discovery_method: z.string().nullable(),
    })
    .nullable()
    .openapi({ description: "The DMARC policy the reporter found published." }),
  records: z.array(ReportRecord).openapi({ description: "A page of the report's records by messages, one per source and outcome (days summed)." }),
}).openapi("DmarcReport", {
  example: {
    id: 42,
    org_name: "google.com",
    report_id: "13877430251622218521",
    email: "noreply-dmarc-support@google.com",
    date_begin: "2026-11-23T00:00:00.000Z",
    date_end: "2026-11-23T23:59:59.000Z",
    messages: 123,
    pass: 120,
    fail: 3,
    received_at: "2026-11-24T06:12:09.000Z",
    policy_published: {
      domain: "example.com",
      p: "none",
      sp: "none",
      np: null,
      adkim: "r",
      aspf: "r",
      pct: 100,
      fo: null,
      testing: null,
      discovery_method: null,
    },
    records: [
      {
        source_ip: "209.85.220.41",
        count: 120,
        disposition: "none",
        header_from: "example.com",
        dkim: { domain: "example.com", selector: "s1", result: "pass", aligned: true },
        spf: { domain: "example.com", result: "pass", aligned: true },
        dmarc: "pass",
      },
      {
        source_ip: "203.0.113.5",
        count: 3,
        disposition: "none",
        header_from: "example.com",
        dkim: { domain: "spoof.example", selector: null, result: "fail", aligned: false },
        spf: { domain: "spoof.example", result: "fail", aligned: false },
        dmarc: "fail",
      },
    ],
  },
});

export const listReportsRoute = createRoute({
  method: "get",
  path: "/domains/{domain}/dmarc/reports",
  tags: ["DMARC"],
  operationId: "listDmarcReports",
  description:
    "Every accepted aggregate report of the domain still within the plan's retention, newest reported period first, with its message count and DMARC pass/fail. A report being written is not listed until it is complete.",
  security: BEARER,
  summary: "Accepted DMARC aggregate reports, newest first",
  request: { params: DomainParam, query: PaginationQuery },
  responses: { 200: jsonContent(pageOf(ReportSummary), "A page of reports."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

export const getReportRoute = createRoute({
  method: "get",
  path: "/domains/{domain}/dmarc/reports/{report}",
  tags: ["DMARC"],
  operationId: "getDmarcReport",
  description:
    "One accepted report: its metadata, the policy the reporter saw and its records (source, count, disposition, DKIM and SPF results, alignment), paginated by `page`/`per_page` with `meta` counting records.",
  security: BEARER,
  summary: "One DMARC aggregate report with its records",
  request: { params: ReportParams, query: PaginationQuery },
  responses: {
    200: jsonContent(z.object({ data: ReportDetail, meta: PageMeta }), "The report and a page of its records."),
    ...errorResponses(...AUTH_ERRORS, 404, 422),
  },
});
