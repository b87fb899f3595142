// Input schema of the message audit, shared by every face that calls it (API, agent tool). No I/O.
import { z } from "@hono/zod-openapi";

/** The envelope a receiver saw; each is optional and read from the trace fields when absent. */
export const AuditEnvelope = {
  ip: z.string().max(64).optional().openapi({ description: "The connecting client IP the receiver saw. Default: from the trusted receiver's fields." }),
  helo: z.string().max(255).optional().openapi({ description: "The HELO/EHLO name. Default: from the trusted receiver's fields." }),
  mail_from: z.string().max(320).optional().openapi({
    description:
      'The MAIL FROM (reverse-path); "" or "<>" for a null reverse-path (a bounce). Default: smtp.mailfrom of the trusted Authentication-Results, else Return-Path.',
  }),
  trusted_authserv_id: z.string().max(255).optional().openapi({
    description:
      "The authserv-id of your receiving server (e.g. mx.google.com). Only its Authentication-Results and the Received field it wrote are read for the envelope; without it the topmost Received field is used and the answer says so.",
  }),
};

export const AuditBody = z
  .object({
    message: z
      .string()
      .min(1)
      .openapi({ description: "The raw RFC 5322 message (or only its header block), CRLF or LF line ends; at most 1 MB (1,048,576 bytes in UTF-8)." }),
    ...AuditEnvelope,
  })
  .openapi("MessageAuditRequest", {
    example: {
      message:
        "Received: from mail.example.com (mail.example.com [192.0.2.10]) by mx.example.net with ESMTPS id 1; Sun, 01 Mar 2026 11:59:01 +0000\r\nFrom: Alice <alice@example.com>\r\nDate: Sun, 01 Mar 2026 11:59:00 +0000\r\nMessage-ID: <abc123@example.com>\r\n\r\nHello.\r\n",
      ip: "192.0.2.10",
      mail_from: "bounces@example.com",
      trusted_authserv_id: "mx.example.net",
    },
  });

export type AuditRequest = z.infer<typeof AuditBody>;

/** The same envelope as query parameters, for a message/rfc822 body. */
export const AuditQuery = z.object({
  ip: AuditEnvelope.ip.openapi({ param: { name: "ip", in: "query" } }),
  helo: AuditEnvelope.helo.openapi({ param: { name: "helo", in: "query" } }),
  mail_from: AuditEnvelope.mail_from.openapi({ param: { name: "mail_from", in: "query" } }),
  trusted_authserv_id: AuditEnvelope.trusted_authserv_id.openapi({ param: { name: "trusted_authserv_id", in: "query" } }),
});
