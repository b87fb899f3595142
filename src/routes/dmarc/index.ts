// DMARC aggregate reports of one monitored domain: analytics, the accepted reports, every source IP.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { getDmarcAnalytics } from "../../services/dmarc/analytics";
import { pageMeta } from "../../lib/pagination";
import { getReport, listReports } from "../../services/dmarc/reports";
import { listFailureSamples } from "../../services/failure-reports/list";
import { listSources } from "../../services/dmarc/sources";
import { booleanQuery } from "../query";
import { listFailuresRoute } from "./failures";
import { DomainParam, WindowQuery, WindowView } from "./params";
import { getReportRoute, listReportsRoute } from "./reports";
import { listSourcesRoute } from "./sources";

const PassFail = z.object({ pass: z.number().int(), fail: z.number().int() });

export const DmarcAnalyticsSchema = z
  .object({
    domain: z.object({ id: z.number().int(), name: z.string() }),
    window: WindowView,
    report_address: z.string().openapi({ description: "The rua mailbox of this domain.", example: "k3j2...@reports.emailauth.example" }),
    summary: z.object({
      reports: z.number().int(),
      reporters: z.number().int(),
      messages: z.number().int(),
      first_report_at: z.string().nullable(),
      last_report_at: z.string().nullable(),
      refused: z.object({
        total: z.number().int(),
        by_reason: z.record(z.string(), z.number().int()).openapi({
          description:
            "Reports refused at the report address in the window, by reason: reports_per_day, records_per_day, reports_per_reporter, date_range, future_report, beyond_retention (docs/limits.md).",
          example: { reports_per_reporter: 3 },
        }),
      }),
    }),
    alignment: z.object({
      rate: z.number().nullable().openapi({ description: "Share of messages passing DMARC (aligned SPF or aligned DKIM), 0..1; null without data." }),
      pass: z.number().int(),
      fail: z.number().int(),
      spf_aligned: z.number().int(),
      dkim_aligned: z.number().int(),
    }),
    sources: z
      .array(
        z.object({
          ip: z.string(),
          ptr: z.string().nullable().openapi({ description: "Forward-confirmed reverse DNS name." }),
          sender: z.string().nullable().openapi({ example: "Google" }),
          identified_by: z.enum(["ptr", "spf"]).nullable(),
          messages: z.number().int(),
          dmarc: PassFail,
          spf: PassFail.extend({ aligned: z.number().int() }),
          dkim: PassFail.extend({ aligned: z.number().int() }),
        }),
      )
      .openapi({ description: "Top sources by messages (at most 100); reverse DNS for the first 25." }),
    sources_total: z.number().int(),
    failing_senders: z.array(
      z.object({
        sender: z.string(),
        messages: z.number().int(),
        fail: z.number().int(),
        sources: z.array(z.string()),
        fixes: z.array(z.string()),
      }),
    ),
    enforcement: z.object({
      current_policy: z.string().nullable(),
      recommended_policy: z.enum(["none", "quarantine", "reject"]),
      safe_to_enforce: z.boolean(),
      reason: z.string(),
      rule: z.string(),
    }),
    suggested_record: z.string().openapi({
      description: "The DMARC record to publish; with `ruf=true` it also asks for failure reports (ruf and fo=1).",
      example: "v=DMARC1; p=quarantine; rua=mailto:k3j2@reports.emailauth.example",
    }),
    daily: z.array(z.object({ day: z.string(), messages: z.number().int(), pass: z.number().int(), fail: z.number().int() })),
  })
  // A real answer of this service (one report, one legitimate and one failing source), so it matches the schema.
  .openapi("DmarcAnalytics", {
    example: {
      domain: { id: 1, name: "example.com" },
      window: { days: 7, from: "2026-11-18", to: "2026-11-24" },
      report_address: "k3j2h1q9z8x7w6v5u4t3@reports.emailauth.example",
      summary: {
        reports: 1,
        reporters: 1,
        messages: 123,
        first_report_at: "2026-11-23T00:00:00.000Z",
        last_report_at: "2026-11-23T23:59:59.000Z",
        refused: { total: 0, by_reason: {} },
      },
      alignment: { rate: 0.9756, pass: 120, fail: 3, spf_aligned: 120, dkim_aligned: 120 },
      sources: [
        {
          ip: "209.85.220.41",
          ptr: null,
          sender: null,
          identified_by: null,
          messages: 120,
          dmarc: { pass: 120, fail: 0 },
          spf: { pass: 120, fail: 0, aligned: 120 },
          dkim: { pass: 120, fail: 0, aligned: 120 },
        },
        {
          ip: "203.0.113.5",
          ptr: null,
          sender: "Google",
          identified_by: "spf",
          messages: 3,
          dmarc: { pass: 0, fail: 3 },
          spf: { pass: 0, fail: 3, aligned: 0 },
          dkim: { pass: 0, fail: 3, aligned: 0 },
        },
      ],
      sources_total: 2,
      failing_senders: [
        {
          sender: "Google",
          messages: 3,
          fail: 3,
          sources: ["203.0.113.5"],
          fixes: [
            "DKIM: turn on DKIM signing for the domain in the Google Admin console (Apps > Gmail > Authenticate email) and publish the google._domainkey TXT record it shows.",
          ],
        },
      ],
      enforcement: {
        current_policy: "none",
        rule: "Move one step (none → quarantine → reject) when at least 98% of messages pass DMARC (aligned SPF or aligned DKIM) over at least 14 days of report data with at least 500 messages, and no identified sender is failing.",
        recommended_policy: "none",
        safe_to_enforce: false,
        reason: "Not enough data yet: 1 day(s) and 123 message(s); the rule needs 14 days and 500 messages.",
      },
      suggested_record: "v=DMARC1; p=none; rua=mailto:3uzbnrn4ryu4pmmemrr2@reports.test",
      daily: [
        { day: "2026-11-18", messages: 0, pass: 0, fail: 0 },
        { day: "2026-11-19", messages: 0, pass: 0, fail: 0 },
        { day: "2026-11-20", messages: 0, pass: 0, fail: 0 },
        { day: "2026-11-21", messages: 0, pass: 0, fail: 0 },
        { day: "2026-11-22", messages: 0, pass: 0, fail: 0 },
        { day: "2026-11-23", messages: 123, pass: 120, fail: 3 },
        { day: "2026-11-24", messages: 0, pass: 0, fail: 0 },
      ],
    },
  });

const analytics = createRoute({
  method: "get",
  path: "/domains/{domain}/dmarc",
  tags: ["DMARC"],
  operationId: "getDmarcAnalytics",
  description:
    "Aggregate-report analytics for the last `days` days, or the days `from` to `to` within the plan's retention: pass/fail and alignment rates, sources with identified senders, failing senders with fixes, enforcement advice and the suggested DMARC record.",
  security: BEARER,
  summary: "DMARC aggregate-report analytics: alignment, sources, failing senders, enforcement advice, daily series",
  request: {
    params: DomainParam,
    query: WindowQuery.extend({
      ruf: booleanQuery(
        "true: the suggested record also asks for failure reports to the report address (`ruf=mailto:...; fo=1`), listed by GET /domains/{domain}/dmarc/failures. Off by default: failure reports are per message.",
      ),
    }),
  },
  responses: { 200: jsonContent(dataOf(DmarcAnalyticsSchema), "The analytics."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

export const dmarcRoutes = () =>
  createRouter()
    .openapi(analytics, async (c) => {
      const { domain } = c.req.valid("param");
      return c.json({ data: await getDmarcAnalytics(c.get("services"), c.get("ctx"), domain, c.req.valid("query")) }, 200);
    })
    .openapi(listReportsRoute, async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listReports(c.get("services"), c.get("ctx"), c.req.valid("param").domain, q);
      return c.json({ data: items, meta: pageMeta(q, total) }, 200);
    })
    .openapi(getReportRoute, async (c) => {
      const q = c.req.valid("query");
      const { domain, report } = c.req.valid("param");
      const out = await getReport(c.get("services"), c.get("ctx"), domain, report, q);
      return c.json({ data: out.report, meta: pageMeta(q, out.total) }, 200);
    })
    .openapi(listSourcesRoute, async (c) => {
      const q = c.req.valid("query");
      const out = await listSources(c.get("services"), c.get("ctx"), c.req.valid("param").domain, q);
      return c.json({ data: out.items, meta: { ...pageMeta(q, out.total), window: out.window } }, 200);
    })
    .openapi(listFailuresRoute, async (c) => {
      const q = c.req.valid("query");
      const out = await listFailureSamples(c.get("services"), c.get("ctx"), c.req.valid("param").domain, q);
      return c.json({ data: out.items, meta: pageMeta(q, out.total) }, 200);
    });
