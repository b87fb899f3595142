// Mail to a person from the notification layer (alert mail, digests): one multipart/alternative message
// built by core/notify/mime, sent through the send_email binding from NOTIFY_FROM as a raw EmailMessage
// (so our own headers, List-Unsubscribe among them, reach the recipient), and kept in the dev outbox when
// DEV_OUTBOX is on. Does I/O (email, D1). Bodies carry links (unsubscribe, pages): never logged.
import { EmailMessage } from "cloudflare:email";
import { eq } from "drizzle-orm";
import PostalMime from "postal-mime";
import { buildMime } from "../../core/notify/mime";
import { devOutbox } from "../../db/schema";
import { randomBase62 } from "../../lib/crypto";
import type { Services } from "../../services";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

export type SendResult = { ok: true } | { ok: false; error: string; transient: boolean };

export const NOT_CONFIGURED = "not sent: configure SEND_EMAIL and NOTIFY_FROM";

/** The domain part of NOTIFY_FROM (a bare address or "Name <address>"), for the Message-ID's right side. */
export function hostOf(from: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  return (
    address
      .slice(address.lastIndexOf("@") + 1)
      .trim()
      .toLowerCase() || "localhost"
  );
}

/** The bare address of NOTIFY_FROM: the envelope sender must equal the From header's address. */
const envelopeOf = (from: string): string => (/<([^>]+)>/.exec(from)?.[1] ?? from).trim();

export async function sendMail(svc: Services, mail: OutgoingMail): Promise<SendResult> {
  const from = svc.config.notifyFrom;
  const binding = svc.env.SEND_EMAIL;
  const canSend = Boolean(binding && from);
  if (!canSend && !svc.config.devOutbox) return { ok: false, transient: false, error: NOT_CONFIGURED };
  const sender = from ?? "notifications@localhost";
  let raw: string;
  try {
    raw = buildMime({
      from: sender,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      // Auto-Submitted: machine-made mail, so no vacation reply or loop answers it (RFC 3834 §5).
      headers: { "Auto-Submitted": "auto-generated", ...mail.headers },
      // A unique Message-ID on the sender's own domain (RFC 5322 §3.6.4).
      messageId: `<${randomBase62(24)}@${hostOf(sender)}>`,
      date: svc.clock.now(),
    });
  } catch (e) {
    // An address or header the message format cannot carry: sending again would fail the same way.
    return { ok: false, transient: false, error: `not sent: ${e instanceof Error ? e.message : String(e)}`.slice(0, 300) };
  }
  if (svc.config.devOutbox) {
    await svc.db.insert(devOutbox).values({ recipient: mail.to, subject: mail.subject, body: mail.text, raw, createdAt: svc.clock.now() });
  }
  if (!canSend || !binding) return { ok: true };
  try {
    await binding.send(new EmailMessage(envelopeOf(sender), mail.to, raw));
    return { ok: true };
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    // The subject and the error only: the body carries links.
    console.error(JSON.stringify({ level: "error", msg: "send_email failed", subject: mail.subject, error }));
    return { ok: false, transient: true, error: `send_email failed: ${error}`.slice(0, 300) };
  }
}

/** The HTML part of one dev-outbox message that kept its MIME source; null when there is none. Callers check DEV_OUTBOX first. */
export async function devOutboxHtml(svc: Services, id: number): Promise<string | null> {
  const row = await svc.db.query.devOutbox.findFirst({ columns: { raw: true }, where: eq(devOutbox.id, id) });
  if (!row?.raw) return null;
  const parsed = await PostalMime.parse(row.raw);
  return parsed.html ?? null;
}
