// A notice to a team's owner: sent through the Cloudflare send_email binding (SEND_EMAIL) when it
// and NOTIFY_FROM are configured; always recorded in the notifications table, and logged when not
// sent. Does I/O (D1, email). Notice bodies never carry secrets.
import { eq } from "drizzle-orm";
import { notifications, teams } from "../../db/schema";
import type { Services } from "../../services";

export interface Notice {
  teamId: number;
  kind: string;
  subject: string;
  body: string;
}

export interface NoticeResult {
  id: number | null;
  sent: boolean;
  error: string | null;
}

export async function notifyOwner(svc: Services, notice: Notice): Promise<NoticeResult> {
  const team = await svc.db.query.teams.findFirst({ where: eq(teams.id, notice.teamId), columns: { ownerEmail: true } });
  if (!team) return { id: null, sent: false, error: "team not found" };
  const recipient = team.ownerEmail;
  let sentAt: Date | null = null;
  let error: string | null = null;
  const from = svc.config.notifyFrom;
  const binding = svc.env.SEND_EMAIL;
  if (binding && from) {
    try {
      await binding.send({ from, to: recipient, subject: notice.subject, text: notice.body });
      sentAt = svc.clock.now();
    } catch (e) {
      error = `send_email failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  } else {
    error = binding ? "not sent: NOTIFY_FROM is not configured" : "not sent: no SEND_EMAIL binding configured";
  }
  const [row] = await svc.db
    .insert(notifications)
    .values({ teamId: notice.teamId, kind: notice.kind, recipient, subject: notice.subject, body: notice.body, sentAt, error, createdAt: svc.clock.now() })
    .returning({ id: notifications.id });
  if (sentAt === null) {
    console.warn(
      JSON.stringify({
        level: "warn",
        msg: "owner notice recorded, not emailed",
        team_id: notice.teamId,
        kind: notice.kind,
        subject: notice.subject,
        reason: error,
      }),
    );
  }
  return { id: row?.id ?? null, sent: sentAt !== null, error };
}
