// POST /messages/audit: a raw message audited as a receiving mailbox provider would (read-only tokens allowed).
import { createRoute } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { createRouter } from "../../app-router";
import type { AppEnv } from "../../context";
import { readBodyCapped } from "../../lib/body";
import { ApiError } from "../../lib/errors";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { jsonBody } from "../../middleware/json-body";
import { MAX_MESSAGE_BYTES } from "../../services/dkim-tools/verify";
import { auditRawMessage } from "../../services/message-audit/audit";
import { AuditBody, AuditQuery, MessageAudit } from "./audit-schemas";
import { z } from "@hono/zod-openapi";

const RFC822 = /^message\/rfc822\s*(;|$)/i;

/**
 * JSON goes through the shared guard (the envelope escapes CR/LF, so it may be up to three times the
 * message); a message/rfc822 body is read raw, capped one byte past the limit so the service's 413
 * names the size. Anything else is a 415.
 */
const auditBody = createMiddleware<AppEnv>(async (c, next) => {
  const type = c.req.header("content-type") ?? "";
  if (!RFC822.test(type)) return jsonBody(3 * 1024 * 1024)(c, next);
  const bytes = await readBodyCapped(c.req.raw, MAX_MESSAGE_BYTES + 1);
  Object.assign(c.req.bodyCache, { arrayBuffer: Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) });
  await next();
});

const audit = createRoute({
  method: "post",
  path: "/messages/audit",
  tags: ["Messages"],
  operationId: "auditMessage",
  summary: "Audit a raw message as Gmail, Yahoo and Microsoft would: SPF, DKIM, DMARC, ARC, one-click unsubscribe, bulk-sender rules",
  description:
    "Send JSON ({message, ip?, helo?, mail_from?, trusted_authserv_id?}) or the message itself as message/rfc822 with the envelope as query parameters. Missing envelope values are read from the trusted receiver's Authentication-Results and Received fields (`envelope.*.source` says which). A message over 1 MB is a 413. A DNS failure is a temperror of the check it belongs to, never a fail. Nothing is stored.",
  security: BEARER,
  middleware: [auditBody],
  request: {
    query: AuditQuery,
    body: {
      required: false,
      content: {
        "application/json": { schema: AuditBody },
        "message/rfc822": { schema: z.string().openapi({ format: "binary", description: "The raw message, at most 1 MB." }) },
      },
    },
  },
  responses: { 200: jsonContent(dataOf(MessageAudit), "The audit."), ...errorResponses(...AUTH_ERRORS, 400, 413, 415, 422) },
});

export const messageAuditRoutes = () =>
  createRouter().openapi(audit, async (c) => {
    const query = c.req.valid("query");
    const type = c.req.header("content-type") ?? "";
    if (RFC822.test(type)) {
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      if (bytes.length === 0) throw new ApiError(422, "validation_failed", "The message is empty.", { message: ["must not be empty"] });
      return c.json({ data: await auditRawMessage(c.get("services"), { ...query, message: bytes }) }, 200);
    }
    const body = c.req.valid("json") as z.infer<typeof AuditBody>;
    return c.json({ data: await auditRawMessage(c.get("services"), { ...query, ...body }) }, 200);
  });
