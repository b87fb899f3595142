// POST /api/webhooks/tlsrpt/{token}: SMTP TLS reports by HTTPS (RFC 8460 §3, the `rua=https:` form).
// The token in the path is the credential (docs/decisions.md D100); the body is read through the one
// capped reader before anything is parsed.
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../lib/errors";
import { dataOf, errorResponses } from "../../lib/openapi";
import { ingestTlsReport } from "../../services/tls-reports/ingest";
import { readCapped } from "./body";

/** RFC 8460 §5.3 media types; gzip is also told by its magic bytes, so a mislabelled body still decodes as what it is. */
const TLS_TYPES = /^application\/tlsrpt\+(json|gzip)\s*(;|$)/i;
/** A TLS report is small (one day of sessions per policy): 1 MB on the wire (docs/limits.md). */
export const MAX_TLS_BODY_BYTES = 1024 * 1024;

const TlsIngestResult = z
  .object({
    report_id: z.string(),
    organization: z.string(),
    domain: z.string(),
    policies: z.number().int(),
    successful: z.number().int(),
    failed: z.number().int(),
    duplicate: z.boolean().openapi({ description: "true when this organization's report-id was already ingested; nothing is counted twice." }),
  })
  .openapi("TlsIngestResult", {
    example: {
      report_id: "2020-01-01T00:00:00Z_example.com",
      organization: "Company-X",
      domain: "example.com",
      policies: 1,
      successful: 5326,
      failed: 303,
      duplicate: false,
    },
  });

const binary = { type: "string" as const, format: "binary" };

export const ingestTlsRoute = createRoute({
  method: "post",
  path: "/tlsrpt/{token}",
  tags: ["TLS reporting"],
  operationId: "ingestTlsReport",
  summary: "Ingest an SMTP TLS report (RFC 8460) sent to a domain's HTTPS reporting URL",
  description:
    "The URL is the domain's `rua=https:` destination (shown in the TLS-RPT fix of its posture); the token in it is the credential. " +
    "Bodies over 1 MB, or over 20 MB of JSON after decompression, are refused with 413; invalid reports with 422 and nothing stored; " +
    "an unknown token is a 404. A report is identified by organization-name and report-id per domain. Limits: docs/limits.md.",
  security: [],
  request: {
    params: z.object({
      token: z
        .string()
        .min(1)
        .max(128)
        .openapi({ param: { name: "token", in: "path" }, example: "k3j2h1q9z8x7w6v5u4t3" }),
    }),
    body: { required: true, content: { "application/tlsrpt+json": { schema: binary }, "application/tlsrpt+gzip": { schema: binary } } },
  },
  responses: {
    200: { description: "Already ingested (duplicate).", content: { "application/json": { schema: dataOf(TlsIngestResult) } } },
    202: { description: "Ingested.", content: { "application/json": { schema: dataOf(TlsIngestResult) } } },
    ...errorResponses(404, 413, 415, 422, 429),
  },
});

export async function readTlsBody(req: Request, contentType: string | undefined): Promise<Uint8Array> {
  if (!TLS_TYPES.test(contentType ?? "")) {
    throw new ApiError(415, "unsupported_media_type", "Send the report as application/tlsrpt+json or application/tlsrpt+gzip (RFC 8460 §5.3).");
  }
  return readCapped(req, MAX_TLS_BODY_BYTES);
}

export { ingestTlsReport };
