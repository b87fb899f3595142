// /domains/{domain}/bimi-hosting: the hosted BIMI logo and mark certificate of a domain (issue 32 §2):
// state with the validation report, logo upload, certificate upload (PEM or URL), delete.
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { createRouter } from "../../app-router";
import { linkOrigin } from "../../config";
import type { AppEnv } from "../../context";
import { readBodyCapped } from "../../lib/body";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { jsonBody } from "../../middleware/json-body";
import { CERTIFICATE_MAX_BYTES, putCertificate } from "../../services/bimi-hosting/certificate";
import { deleteBimiHosting } from "../../services/bimi-hosting/delete";
import { LOGO_MAX_BYTES, putLogo } from "../../services/bimi-hosting/logo";
import { getBimiHosting } from "../../services/bimi-hosting/state";
import { DomainParams } from "../domains/schemas";
import { BimiHosting, CertificateBody, LogoBody, SelectorQuery } from "./schemas";

const tags = ["BIMI hosting"];
const security = BEARER;
const SVG_TYPE = /^image\/svg\+xml\s*(;|$)/i;
const PEM_TYPE = /^(application\/pem-certificate-chain|application\/x-pem-file)\s*(;|$)/i;

/** JSON through the shared guard, or the raw file of `raw` type read one byte past `cap` so the service's 413 names the size. */
const fileOrJson = (raw: RegExp, cap: number) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!raw.test(c.req.header("content-type") ?? "")) return jsonBody(cap * 2)(c, next);
    const bytes = await readBodyCapped(c.req.raw, cap + 1);
    Object.assign(c.req.bodyCache, { arrayBuffer: Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) });
    await next();
  });

const origin = (c: { get(k: "services"): { config: Parameters<typeof linkOrigin>[0] }; req: { url: string } }) =>
  linkOrigin(c.get("services").config, c.req.url);

const get = createRoute({
  method: "get",
  path: "/domains/{domain}/bimi-hosting",
  tags,
  security,
  operationId: "getBimiHosting",
  summary: "The hosted BIMI logo and certificate, the record to publish, the validation report and whether Gmail would show the logo",
  description:
    "The state of one selector (default `default`): the public URLs for l= and a=, the TXT record to publish, what DNS answers for it now, the stored validation report (SVG Tiny PS findings; the certificate's chain, EKU, dates, names and logotype checks) and, requirement by requirement, whether Gmail would show the logo (met / not met / cannot tell, with the fix). Read-only tokens may read it.",
  request: { params: DomainParams, query: SelectorQuery },
  responses: { 200: jsonContent(dataOf(BimiHosting), "The hosted state."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

const putLogoRoute = createRoute({
  method: "put",
  path: "/domains/{domain}/bimi-hosting/logo",
  tags,
  security,
  operationId: "putBimiLogo",
  summary: "Upload the logo served for l= (SVG Tiny PS, at most 32 KB)",
  description:
    "Send the SVG itself as image/svg+xml, or JSON {svg}. A file over 32 KB is a 413; a logo that breaks the SVG Tiny PS profile (version 1.2 tiny-ps root, a title, no scripts, no external references...) is a 422 listing every problem with its fix. The domain must be verified (409). A hosted certificate is validated again against the new logo. One team hosts a name and selector (409).",
  middleware: [fileOrJson(SVG_TYPE, LOGO_MAX_BYTES)] as const,
  request: {
    params: DomainParams,
    query: SelectorQuery,
    body: {
      required: false,
      content: {
        "image/svg+xml": { schema: z.string().openapi({ description: "The SVG document." }) },
        "application/json": { schema: LogoBody },
      },
    },
  },
  responses: { 200: jsonContent(dataOf(BimiHosting), "The hosted state."), ...errorResponses(...AUTH_ERRORS, 400, 403, 404, 409, 413, 415, 422) },
});

const putCertificateRoute = createRoute({
  method: "put",
  path: "/domains/{domain}/bimi-hosting/certificate",
  tags,
  security,
  operationId: "putBimiCertificate",
  summary: "Upload the mark certificate (VMC or CMC) served for a=, as PEM or from an https URL",
  description:
    "Send the PEM bundle (leaf first, then intermediates) as application/pem-certificate-chain, or JSON {pem} or {url}. A URL is fetched once, over https to a public address only, without following redirects. The certificate is validated against the hosted logo (chain to a BIMI-trusted root, the BIMI extended key usage, dates, names, the logotype's SVG) and kept even when it fails: the report says why. A private key in the bundle is refused (422). 503 when the URL's host cannot be resolved now.",
  middleware: [fileOrJson(PEM_TYPE, CERTIFICATE_MAX_BYTES)] as const,
  request: {
    params: DomainParams,
    query: SelectorQuery,
    body: {
      required: false,
      content: {
        "application/pem-certificate-chain": { schema: z.string().openapi({ description: "The PEM bundle." }) },
        "application/x-pem-file": { schema: z.string().openapi({ description: "The PEM bundle (the type many tools send for .pem files)." }) },
        "application/json": { schema: CertificateBody },
      },
    },
  },
  responses: { 200: jsonContent(dataOf(BimiHosting), "The hosted state."), ...errorResponses(...AUTH_ERRORS, 400, 403, 404, 409, 413, 415, 422, 503) },
});

const del = createRoute({
  method: "delete",
  path: "/domains/{domain}/bimi-hosting",
  tags,
  security,
  operationId: "deleteBimiHosting",
  summary: "Stop hosting the logo and certificate of a selector",
  description: "The public URLs answer 404 from now on; remove or change the BIMI record first. Its certificate alerts resolve.",
  request: { params: DomainParams, query: SelectorQuery },
  responses: { 204: { description: "Deleted." }, ...errorResponses(...AUTH_ERRORS, 403, 404, 422) },
});

const rawText = async (c: { req: { arrayBuffer(): Promise<ArrayBuffer> } }) => new Uint8Array(await c.req.arrayBuffer());

export const bimiHostingRoutes = () =>
  createRouter()
    .openapi(get, async (c) => {
      const { domain } = c.req.valid("param");
      const { selector } = c.req.valid("query");
      return c.json({ data: await getBimiHosting(c.get("services"), c.get("ctx"), domain, { selector, origin: origin(c) }) }, 200);
    })
    .openapi(putLogoRoute, async (c) => {
      const { domain } = c.req.valid("param");
      const { selector } = c.req.valid("query");
      const svg = SVG_TYPE.test(c.req.header("content-type") ?? "") ? await rawText(c) : (c.req.valid("json") as z.infer<typeof LogoBody>).svg;
      return c.json({ data: await putLogo(c.get("services"), c.get("ctx"), domain, { selector, svg, origin: origin(c) }) }, 200);
    })
    .openapi(putCertificateRoute, async (c) => {
      const { domain } = c.req.valid("param");
      const { selector } = c.req.valid("query");
      const body = PEM_TYPE.test(c.req.header("content-type") ?? "")
        ? { pem: new TextDecoder().decode(await rawText(c)) }
        : (c.req.valid("json") as z.infer<typeof CertificateBody>);
      return c.json({ data: await putCertificate(c.get("services"), c.get("ctx"), domain, { selector, ...body, origin: origin(c) }) }, 200);
    })
    .openapi(del, async (c) => {
      const { domain } = c.req.valid("param");
      const { selector } = c.req.valid("query");
      await deleteBimiHosting(c.get("services"), c.get("ctx"), domain, { selector });
      return c.body(null, 204);
    });
