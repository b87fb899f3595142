// Digest and person-mail test support: members added straight to D1, a recording send_email binding that
// keeps each raw message (the EmailMessage's source, as miniflare's own binding reads it), and the
// Worker's scheduled export fired at a pinned time with that binding, NOTIFY_FROM and SITE_URL set.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import PostalMime, { type Email } from "postal-mime";
import { vi } from "vitest";
import worker from "../../src/index";
import { unique } from "./api";

export const SITE = "https://api.test";
export const FROM = "digest@notify.test";

export interface SentMail {
  from: string;
  to: string;
  raw: string;
}

/** A send_email binding that records what it is given (miniflare keeps an EmailMessage's source under this key). */
export function recordingMailer(): { binding: SendEmail; sent: SentMail[] } {
  const sent: SentMail[] = [];
  const binding = {
    async send(message: EmailMessage) {
      const raw = (message as unknown as Record<string, unknown>)["EmailMessage::raw"];
      sent.push({ from: message.from, to: message.to, raw: typeof raw === "string" ? raw : await new Response(raw as ReadableStream).text() });
      return { messageId: `<${unique("m")}@notify.test>` };
    },
  } as unknown as SendEmail;
  return { binding, sent };
}

export const mailEnv = (binding: SendEmail) => ({ ...env, SEND_EMAIL: binding, NOTIFY_FROM: FROM, SITE_URL: SITE });

/** Runs the every-minute cron through the Worker's scheduled export at `at` (only Date is faked). */
export async function everyMinuteAt(at: Date, runEnv: typeof env): Promise<void> {
  vi.useFakeTimers({ toFake: ["Date"], now: at.getTime() });
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: at.getTime() }), runEnv, ctx);
  await waitOnExecutionContext(ctx);
}

export interface TestMember {
  userId: number;
  email: string;
}

/** A user who is a member of the team (created now). */
export async function addMember(teamId: number, role: "owner" | "admin" | "viewer" = "viewer"): Promise<TestMember> {
  const email = `${unique("member")}@people.test`;
  const user = await env.DB.prepare("INSERT INTO users (email, created_at) VALUES (?, ?) RETURNING id").bind(email, Date.now()).first<{ id: number }>();
  if (!user) throw new Error("user insert failed");
  await env.DB.prepare("INSERT INTO memberships (team_id, user_id, role, created_at) VALUES (?, ?, ?, ?)").bind(teamId, user.id, role, Date.now()).run();
  return { userId: user.id, email };
}

export const parseMail = (raw: string): Promise<Email> => PostalMime.parse(raw);

/** A header of a parsed mail by its lower-cased name ("" when absent). */
export const headerOf = (mail: Email, name: string) => mail.headers.find((h) => h.key === name)?.value ?? "";
