// GET /domains/{domain}/dmarc/failures: the DMARC failure samples (RFC 9991 failure reports) of a domain,
// newest first, paginated. Route definition and schemas.
import { createRoute, z } from "@hono/zod-openapi";
import { AUTH_ERRORS, BEARER, errorResponses, jsonContent, pageOf } from "../../lib/openapi";
import { PaginationQuery } from "../../lib/pagination";
import { DomainParam } from "./params";

const day = (description: string, example: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date, YYYY-MM-DD")
    .optional()
    .openapi({ description, example });

export const FailuresQuery = PaginationQuery.extend({
  from: day("First day (UTC) samples were received, within the last 30 days (the retention).", "2026-11-01"),
  to: day("Last day (UTC) samples were received, not after today and not before `from`.", "2026-11-24"),
});

const FailureSample = z
  .object({
    id: z.number().int(),
    received_at: z.string().openapi({ description: "When the service received the report." }),
    reporting_org: z.string().nullable().openapi({ description: "The reporter: the domain of the report's sender, else its Reporting-MTA." }),
    arrival_date: z.string().nullable().openapi({ description: "When the failing message reached the reporter (Arrival-Date); null when not given." }),
    source_ip: z.string().nullable().openapi({ description: "The address the failing message came from (Source-IP)." }),
    auth_failure: z
      .string()
      .nullable()
      .openapi({ description: "The failed mechanism (Auth-Failure, RFC 6591 §3.1): dmarc, dkim, spf, adsp, bodyhash, revoked or signature." }),
    auth_results: z.string().nullable().openapi({ description: "The reporter's Authentication-Results (RFC 8601), one per line, at most 1,024 characters." }),
    identity_alignment: z
      .string()
      .nullable()
      .openapi({ description: "Which identifiers aligned with the From domain (Identity-Alignment): none, dkim, spf, or dkim, spf." }),
    dkim_domain: z.string().nullable(),
    dkim_selector: z.string().nullable(),
    delivery_result: z.string().nullable().openapi({ description: "What the reporter did with the message: delivered, spam, policy, reject or other." }),
  })
  .openapi("DmarcFailureSample", {
    example: {
      id: 7,
      received_at: "2026-11-24T10:00:02.000Z",
      reporting_org: "mail.big-receiver.example",
      arrival_date: "2026-11-24T10:00:00.000Z",
      source_ip: "203.0.113.5",
      auth_failure: "dmarc",
      auth_results:
        "mx1.big-receiver.example; dkim=fail header.d=example.com header.s=s1; spf=fail smtp.mailfrom=example.com; dmarc=fail header.from=example.com",
      identity_alignment: "none",
      dkim_domain: "example.com",
      dkim_selector: "s1",
      delivery_result: "reject",
    },
  });

export const listFailuresRoute = createRoute({
  method: "get",
  path: "/domains/{domain}/dmarc/failures",
  tags: ["DMARC"],
  operationId: "listDmarcFailures",
  description:
    "DMARC failure samples of the domain (RFC 9991 failure reports mailed to its report address, published as `ruf=mailto:<report address>`; ask for `ruf=true` on GET /domains/{domain}/dmarc for the record), newest received first, kept 30 days. Only the reporter, arrival date, source address, authentication results, alignment, DKIM domain and selector and the delivery result are kept: never the message, its headers, sender or recipients.",
  security: BEARER,
  summary: "DMARC failure samples (failure reports), newest first",
  request: { params: DomainParam, query: FailuresQuery },
  responses: { 200: jsonContent(pageOf(FailureSample), "A page of failure samples."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});
