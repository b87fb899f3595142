// POST /api/webhooks/dmarc (site root, no bearer token): DMARC aggregate report ingestion authenticated
// by X-Signature (HMAC-SHA256 of the raw body). The body schemas are plain JSON Schema, not zod, so
// no validator reads the body before the signature is checked over the exact bytes received.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { dataOf, errorResponses } from "../../lib/openapi";
import { ingestReport } from "../../services/dmarc/ingest";
import { presentedSignature, readCapped, unpackBody, verifySignature } from "./body";
import { ingestTlsReport, ingestTlsRoute, readTlsBody } from "./tls";

const IngestResult = z
  .object({
    report_id: z.string().openapi({ example: "17368718432398577920" }),
    domain: z.string().openapi({ example: "example.com" }),
    records: z.number().int().openapi({ example: 42 }),
    duplicate: z.boolean().openapi({ description: "true when this reporter's report was already ingested; nothing is counted twice." }),
  })
  .openapi("DmarcIngestResult", { example: { report_id: "17368718432398577920", domain: "example.com", records: 42, duplicate: false } });

const binary = { type: "string" as const, format: "binary" };

const ingest = createRoute({
  method: "post",
  path: "/dmarc",
  tags: ["DMARC ingestion"],
  operationId: "ingestDmarcReport",
  summary: "Ingest a DMARC aggregate report (raw XML, gzip or zip, or JSON with base64 content)",
  description:
    "Authenticated by `X-Signature: sha256=<hex HMAC-SHA256 of the raw body>` keyed with DMARC_INGEST_SECRET. " +
    "The report's domain comes from `recipient` (the domain's report address) or, without one, from the verified domain named in the report. " +
    "Bodies over 10 MB, or over 100 MB of XML after decompression, are refused with 413. " +
    "Only verified domains take reports. Per plan, a domain accepts a number of reports and records a day and of reports per reporter a day " +
    "(429 with Retry-After past them); a report with no record (RFC 7489 Appendix C) or more than 200,000, a date range over 7 days, a start in the future or an end " +
    "beyond the plan's retention is refused with 422. Domain and selector fields are cut to 253 characters; 8 DKIM and 8 SPF results are kept per record. " +
    "Every limit with its plan values: docs/limits.md.",
  security: [{ dmarcSignature: [] }],
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["content_base64"],
            properties: {
              recipient: { type: "string", description: "The address the report was mailed to." },
              filename: { type: "string" },
              content_base64: { type: "string", description: "The report file (XML, gzip or zip), base64." },
            },
          },
        },
        "application/xml": { schema: binary },
        "application/gzip": { schema: binary },
        "application/zip": { schema: binary },
        "application/octet-stream": { schema: binary },
      },
    },
  },
  responses: {
    200: { description: "Already ingested (duplicate).", content: { "application/json": { schema: dataOf(IngestResult) } } },
    202: { description: "Ingested.", content: { "application/json": { schema: dataOf(IngestResult) } } },
    ...errorResponses(400, 401, 409, 413, 422, 429),
  },
});

export const ingestRoutes = () => {
  const r = createRouter();
  r.openapi(ingest, async (c) => {
    const svc = c.get("services");
    const secret = svc.config.dmarcIngestSecret;
    const presented = presentedSignature(c.req.header("x-signature"), secret);
    const body = await readCapped(c.req.raw);
    await verifySignature(body, presented, secret ?? "");
    const { bytes, recipient } = unpackBody(body, c.req.header("content-type"));
    const out = await ingestReport(svc, { body: bytes, recipient });
    return out.duplicate ? c.json({ data: out }, 200) : c.json({ data: out }, 202);
  });
  r.openapi(ingestTlsRoute, async (c) => {
    const { token } = c.req.valid("param");
    const body = await readTlsBody(c.req.raw, c.req.header("content-type"));
    const out = await ingestTlsReport(c.get("services"), { body, token }, "https");
    return out.duplicate ? c.json({ data: out }, 200) : c.json({ data: out }, 202);
  });
  return r;
};
