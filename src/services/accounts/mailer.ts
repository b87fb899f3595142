// Mail to a person (sign-in links, invitations): through the send_email binding from NOTIFY_FROM when
// both are configured; with DEV_OUTBOX=true (local development only) also kept in the dev outbox so a
// developer can open it at /dev/outbox. Does I/O (email, D1). The body may carry a one-time link, so it
// is never logged and never stored outside the dev outbox.
import { desc } from "drizzle-orm";
import { devOutbox } from "../../db/schema";
import type { Services } from "../../services";

export interface PersonMail {
  to: string;
  subject: string;
  text: string;
}

export async function sendPersonMail(svc: Services, mail: PersonMail): Promise<{ sent: boolean }> {
  let sent = false;
  const from = svc.config.notifyFrom;
  const binding = svc.env.SEND_EMAIL;
  if (binding && from) {
    try {
      await binding.send({ from, to: mail.to, subject: mail.subject, text: mail.text });
      sent = true;
    } catch (e) {
      console.error(JSON.stringify({ level: "error", msg: "send_email failed", subject: mail.subject, error: e instanceof Error ? e.message : String(e) }));
    }
  }
  if (svc.config.devOutbox) {
    await svc.db.insert(devOutbox).values({ recipient: mail.to, subject: mail.subject, body: mail.text, createdAt: svc.clock.now() });
    console.log(JSON.stringify({ level: "info", msg: "mail written to the dev outbox (/dev/outbox)", to: mail.to, subject: mail.subject }));
  } else if (!sent) {
    console.warn(JSON.stringify({ level: "warn", msg: "mail not sent: configure SEND_EMAIL and NOTIFY_FROM", subject: mail.subject }));
  }
  return { sent };
}

/** The newest dev-outbox messages; callers check that DEV_OUTBOX is on before showing them. */
export async function listDevOutbox(svc: Services, limit = 50) {
  return svc.db.select().from(devOutbox).orderBy(desc(devOutbox.id)).limit(limit);
}
