// GET /domains/{domain}/tls: SMTP TLS report analytics (RFC 8460) of one monitored domain.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { getTlsAnalytics } from "../../services/tls-reports/analytics";

const DomainParam = z.object({
  domain: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: "domain", in: "path" }, description: "Domain id.", example: 1 }),
});

const TlsQuery = z.object({
  days: z.coerce.number().int().min(1).max(365).default(30).openapi({ description: "Window in days ending today, 1 to 365.", example: 30 }),
});

export const TlsAnalyticsSchema = z
  .object({
    domain: z.object({ id: z.number().int(), name: z.string() }),
    window: z.object({ days: z.number().int(), from: z.string(), to: z.string() }),
    rua: z.string().openapi({ description: "The TLS-RPT rua value that sends this domain's reports here (`v=TLSRPTv1; rua=<this>`)." }),
    summary: z.object({
      reports: z.number().int(),
      organizations: z.number().int(),
      successful: z.number().int(),
      failed: z.number().int(),
      success_rate: z.number().nullable().openapi({ description: "Successful share of all reported sessions, 0..1; null without data." }),
      last_report_at: z.string().nullable(),
    }),
    daily: z.array(z.object({ day: z.string(), successful: z.number().int(), failed: z.number().int() })),
    failures_by_type: z.array(
      z.object({
        result_type: z.string().openapi({ description: "RFC 8460 §4.3 result type, e.g. certificate-expired." }),
        failed: z.number().int(),
        mx_hosts: z.array(z.string()),
        advice: z.string(),
      }),
    ),
    failures_by_mx: z.array(z.object({ mx_host: z.string().nullable(), failed: z.number().int(), result_types: z.array(z.string()) })),
    policies: z.array(
      z.object({
        policy_type: z.string().openapi({ description: "sts (MTA-STS), tlsa (DANE) or no-policy-found." }),
        policy_domain: z.string(),
        mx_hosts: z.array(z.string()),
        policy_strings: z.array(z.string()),
        reports: z.number().int(),
        successful: z.number().int(),
        failed: z.number().int(),
        last_day: z.string(),
      }),
    ),
  })
  .openapi("TlsAnalytics", {
    example: {
      domain: { id: 1, name: "example.com" },
      window: { days: 7, from: "2026-11-18", to: "2026-11-24" },
      rua: "https://emailauth.example/api/webhooks/tlsrpt/k3j2h1q9z8x7w6v5u4t3",
      summary: { reports: 1, organizations: 1, successful: 5326, failed: 303, success_rate: 0.9462, last_report_at: "2026-11-23T08:00:00.000Z" },
      daily: [{ day: "2026-11-23", successful: 5326, failed: 303 }],
      failures_by_type: [
        {
          result_type: "certificate-expired",
          failed: 200,
          mx_hosts: ["mx1.example.com"],
          advice:
            "The certificate presented by mx1.example.com has expired; these MX hosts are named in your MTA-STS policy, so senders enforcing it refuse to deliver. Renew it and make sure the renewal is installed on every MX host.",
        },
      ],
      failures_by_mx: [{ mx_host: "mx1.example.com", failed: 200, result_types: ["certificate-expired"] }],
      policies: [
        {
          policy_type: "sts",
          policy_domain: "example.com",
          mx_hosts: ["mx1.example.com"],
          policy_strings: ["version: STSv1", "mode: enforce", "mx: mx1.example.com", "max_age: 86400"],
          reports: 1,
          successful: 5326,
          failed: 303,
          last_day: "2026-11-23",
        },
      ],
    },
  });

const tlsRoute = createRoute({
  method: "get",
  path: "/domains/{domain}/tls",
  tags: ["TLS reporting"],
  operationId: "getTlsAnalytics",
  summary: "SMTP TLS report analytics: success rate, daily series, failures by type and MX host, policies, advice",
  description:
    "Built from the SMTP TLS reports (RFC 8460) received for the domain over the last `days` days, by HTTPS or by mail. `rua` is the value to publish in the domain's `_smtp._tls` record.",
  security: BEARER,
  request: { params: DomainParam, query: TlsQuery },
  responses: { 200: jsonContent(dataOf(TlsAnalyticsSchema), "The analytics."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

export const tlsRoutes = () =>
  createRouter().openapi(tlsRoute, async (c) => {
    const { domain } = c.req.valid("param");
    return c.json({ data: await getTlsAnalytics(c.get("services"), c.get("ctx"), domain, c.req.valid("query").days) }, 200);
  });
