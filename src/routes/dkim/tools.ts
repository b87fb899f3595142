// Stateless DKIM tools: POST /dkim/verify, POST /dkim/generate, GET /dkim/lookup (read-only tokens allowed).
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import type { SelectorEntry, SelectorScan } from "../../core/dkim";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { jsonBody } from "../../middleware/json-body";
import { generateDkimKey } from "../../services/dkim-tools/generate";
import { lookupDkim } from "../../services/dkim-tools/lookup";
import { verifyDkimMessage } from "../../services/dkim-tools/verify";
import { DkimKeyPair, DkimLookup, DkimVerification, GenerateBody, LookupQuery, VerifyBody } from "./tools-schemas";

const verify = createRoute({
  method: "post",
  path: "/dkim/verify",
  tags: ["DKIM"],
  operationId: "verifyDkim",
  summary: "Verify every DKIM-Signature of a raw message against the published keys",
  description:
    "Each signature is re-verified from scratch (RFC 6376, RFC 8301, RFC 8463). A message over 1 MB is a 413. A key lookup that fails is a temperror for that signature, never a fail.",
  security: BEARER,
  // The JSON envelope escapes CR/LF and quotes, so it may be larger than the 1 MB message itself.
  middleware: [jsonBody(3 * 1024 * 1024)],
  request: { body: { required: true, content: { "application/json": { schema: VerifyBody } } } },
  responses: { 200: jsonContent(dataOf(DkimVerification), "The verification."), ...errorResponses(...AUTH_ERRORS, 400, 413, 415, 422) },
});

const generate = createRoute({
  method: "post",
  path: "/dkim/generate",
  tags: ["DKIM"],
  operationId: "generateDkimKey",
  summary: "Generate a DKIM key pair and the exact TXT record to publish",
  description: "Nothing is stored or logged; the response carries Cache-Control: no-store.",
  security: BEARER,
  middleware: [jsonBody()],
  request: { body: { required: true, content: { "application/json": { schema: GenerateBody } } } },
  responses: { 200: jsonContent(dataOf(DkimKeyPair), "The key pair."), ...errorResponses(...AUTH_ERRORS, 400, 413, 415, 422) },
});

const lookup = createRoute({
  method: "get",
  path: "/dkim/lookup",
  tags: ["DKIM"],
  operationId: "lookupDkim",
  summary: "Look up DKIM selectors of any domain live",
  description:
    'selector and selectors are merged (at most 20 distinct names). With neither, the common selectors of major providers are scanned. A domain\'s selectors cannot be enumerated, so an empty result reads "not found among N selectors checked". 503 when no lookup could be answered at all.',
  security: BEARER,
  request: { query: LookupQuery },
  responses: { 200: jsonContent(dataOf(DkimLookup), "The selectors found and missing."), ...errorResponses(...AUTH_ERRORS, 422, 503) },
});

type LookupSelector = Omit<SelectorEntry, "status"> & { host: string; status: Exclude<SelectorEntry["status"], "missing"> };

/** Adds each selector's host; "missing" entries live in `missing`, never in `selectors`. */
function shapeLookup(scan: SelectorScan) {
  const selectors: Record<string, LookupSelector> = {};
  for (const [name, e] of Object.entries(scan.selectors)) {
    if (e.status === "missing") continue;
    selectors[name] = { host: `${name}._domainkey.${scan.domain}`, ...e, status: e.status };
  }
  return { ...scan, selectors };
}

export const dkimToolRoutes = () =>
  createRouter()
    .openapi(verify, async (c) => {
      const { message } = c.req.valid("json");
      return c.json({ data: await verifyDkimMessage(c.get("services"), message) }, 200);
    })
    .openapi(generate, async (c) => {
      const key = await generateDkimKey(c.req.valid("json"));
      // A private key must not linger in any cache (RFC 9111 §5.2.2.5).
      c.header("Cache-Control", "no-store");
      return c.json({ data: key }, 200);
    })
    .openapi(lookup, async (c) => {
      const scan = await lookupDkim(c.get("services"), c.req.valid("query"));
      return c.json({ data: shapeLookup(scan) }, 200);
    });
