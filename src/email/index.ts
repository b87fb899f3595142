// Email Routing entry point: DMARC aggregate, DMARC failure (RFC 9991) and SMTP TLS reports mailed to
// <report_token>@<REPORT_DOMAIN> are parsed (postal-mime) and ingested through their service verbs (the
// same as HTTP where there is one). Does I/O (D1, queue).
import PostalMime, { type Attachment, type Email } from "postal-mime";
import { isFeedbackReportMail } from "../core/arf/report";
import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { createServices, type Services } from "../services";
import { domainForRecipient, ingestReport } from "../services/dmarc/ingest";
import { ingestFailureReport } from "../services/failure-reports/ingest";
import { ingestTlsReport } from "../services/tls-reports/ingest";
import { tlsReportPart } from "./kinds";

/** Same cap as the HTTP body (docs/decisions.md D17): checked on rawSize before anything is read. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

const REPORT_NAME = /\.(xml|xml\.gz|gz|gzip|zip)$/i;
const REPORT_TYPE = /^(application|text)\/(xml|gzip|x-gzip|zip|x-zip-compressed|x-zip|octet-stream)$/i;

const bytesOf = (content: Attachment["content"]): Uint8Array =>
  typeof content === "string" ? new TextEncoder().encode(content) : content instanceof Uint8Array ? content : new Uint8Array(content);

/** The report part: an attachment named or typed like a report, else an inline XML body. */
export function reportPart(email: { attachments: Attachment[]; text?: string }): Uint8Array | null {
  const named = email.attachments.filter((a) => REPORT_NAME.test(a.filename ?? ""));
  const typed = email.attachments.filter((a) => REPORT_TYPE.test(a.mimeType) && a.mimeType !== "application/octet-stream");
  const pick = named[0] ?? typed[0];
  if (pick) return bytesOf(pick.content);
  const text = email.text?.trimStart() ?? "";
  if (text.startsWith("<?xml") || text.startsWith("<feedback")) return new TextEncoder().encode(text);
  return null;
}

/**
 * The exported handler takes exactly what the runtime passes (message, env, ctx): workerd calls it
 * over RPC and refuses a handler whose arity differs. Nothing else may be added to this signature.
 */
export async function handleEmail(message: ForwardableEmailMessage, env: Env, _ctx: ExecutionContext): Promise<void> {
  return receiveReportMail(createServices(env), message);
}

/**
 * The reason goes into the SMTP reply (RFC 5321 §4.2: one line of text): CR, LF and every other control
 * character become a space, so report content can never inject reply lines.
 */
export const smtpReason = (reason: string): string =>
  reason
    .replace(/\p{Cc}+/gu, " ")
    .replace(/ {2,}/g, " ")
    .trim()
    .slice(0, 200);

export async function receiveReportMail(svc: Services, message: ForwardableEmailMessage): Promise<void> {
  const reject = (reason: string) => message.setReject(smtpReason(reason));
  if (message.rawSize > MAX_MESSAGE_BYTES) return reject(`Message too large (limit ${MAX_MESSAGE_BYTES} bytes).`);
  const target = await domainForRecipient(svc, message.to);
  if (target === null) return reject("Unknown recipient.");
  let part: Uint8Array | null;
  let tls: Uint8Array | null;
  let failure: Email | null;
  try {
    const email = await PostalMime.parse(message.raw, { attachmentEncoding: "arraybuffer" });
    // A failure report is told apart first (docs/decisions.md D107): its third part may be the original
    // message, whose attachments must never be read as an aggregate or TLS report.
    failure = isFeedbackReportMail(email) ? email : null;
    tls = failure === null ? tlsReportPart(email) : null;
    part = failure === null && tls === null ? reportPart(email) : null;
  } catch {
    return reject("Malformed MIME message.");
  }
  if (part === null && tls === null && failure === null) return reject("No DMARC aggregate report attached.");
  try {
    if (failure !== null) await ingestFailureReport(svc, { recipient: message.to, email: failure });
    else if (tls !== null) await ingestTlsReport(svc, { body: tls, recipient: message.to }, "email");
    else if (part !== null) await ingestReport(svc, { body: part, recipient: message.to });
  } catch (error) {
    if (error instanceof ApiError && error.status < 500 && error.status !== 409) {
      const code = error.errors?.body?.[0];
      return reject(`Report refused${code ? ` (${code})` : ""}: ${error.message}`);
    }
    // A transient failure (D1, or a copy being ingested concurrently): throwing makes the sending MTA see a temporary error and retry.
    throw error;
  }
}
