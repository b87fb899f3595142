// One-time email links (sign-in and invitation): random, stored only as SHA-256, single use, 15
// minutes (docs/decisions.md D30). Requests are throttled per address and per client, and answered
// the same way whether or not the address has an account (no enumeration). Does I/O (D1, DO, email).
import { and, eq, gt, isNull } from "drizzle-orm";
import { type MemberRole, signInLinks } from "../../db/schema";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import type { Services } from "../../services";
import { commit, type Statement } from "../commit";
import { sendPersonMail } from "./mailer";
import { ssoGateFor } from "./sso-gate";

export const LINK_TTL_MS = 15 * 60_000;
/** Link requests a minute, per address and per client address (docs/limits.md). */
export const LINKS_PER_ADDRESS_PER_MINUTE = 3;
export const LINKS_PER_CLIENT_PER_MINUTE = 10;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/** Lower-cased, trimmed, and shaped like an address (the link itself proves it is deliverable). */
export function normalizeEmail(input: string): string | null {
  const email = input.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) return null;
  const domain = email.slice(email.indexOf("@") + 1);
  return domain.includes(".") && !domain.startsWith(".") && !domain.endsWith(".") && !domain.includes("..") ? email : null;
}

/**
 * The inbox an address reaches, for the per-address throttle: the local part before its first "+" (a
 * sub-address tag, RFC 5233 §1) and the rest lower-cased, so name+1@ and NAME+2@ share one budget
 * (docs/decisions.md D150). Only the throttle key: the mail still goes to the address as typed.
 */
export function inboxOf(email: string): string {
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at);
  const plus = local.indexOf("+");
  return `${plus >= 0 ? local.slice(0, plus) : local}@${email.slice(at + 1)}`.toLowerCase();
}

/** Only same-origin paths survive as a post-sign-in destination (never //host or a scheme). */
export function safeNext(next: string | null | undefined): string | null {
  if (!next || next.length > 2000) return null;
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return null;
  // Control characters (CR/LF in a header, NUL) never belong in a path we redirect to.
  for (let i = 0; i < next.length; i++) if (next.charCodeAt(i) < 0x20 || next.charCodeAt(i) === 0x7f) return null;
  return next;
}

async function throttle(svc: Services, key: string, perMinute: number): Promise<void> {
  const r = await svc.rateLimiter.failure(key, perMinute);
  if (r.blocked) {
    throw new ApiError(429, "rate_limited", `Too many sign-in links requested; try again in ${r.retryAfterSeconds} seconds.`, undefined, {
      "Retry-After": String(r.retryAfterSeconds),
    });
  }
}

interface LinkInput {
  email: string;
  purpose: "sign_in" | "invite";
  next?: string | null;
  teamId?: number;
  role?: MemberRole;
  invitedBy?: number;
}

/** Stores a new link and returns its token (only the hash is kept); `also` joins the insert's batch (an invitation's audit entry). */
async function createLink(svc: Services, input: LinkInput, also: Statement[] = []): Promise<string> {
  const token = randomBase62(43);
  const now = svc.clock.now();
  const insert = svc.db.insert(signInLinks).values({
    tokenHash: await sha256Hex(token),
    email: input.email,
    purpose: input.purpose,
    teamId: input.teamId ?? null,
    role: input.role ?? null,
    invitedBy: input.invitedBy ?? null,
    next: safeNext(input.next),
    createdAt: now,
    expiresAt: new Date(now.getTime() + LINK_TTL_MS),
  });
  await commit(svc, [insert, ...also]);
  return token;
}

export const linkUrl = (origin: string, token: string) => `${origin}/auth/link?token=${encodeURIComponent(token)}`;

/**
 * Mails a sign-in link. Throttled per address and per client; the same answer for every valid address.
 * An address in a domain whose team enforces single sign-on gets no link (only the team's owner does,
 * D247); the answer then names the provider, the same for every address of that domain.
 */
export async function requestSignInLink(
  svc: Services,
  input: { email: string; client: string; origin: string; next?: string | null },
): Promise<{ ssoIssuerHost: string | null }> {
  const email = normalizeEmail(input.email);
  if (!email) throw new ApiError(422, "validation_failed", "Enter a valid email address.", { email: ["Enter a valid email address."] });
  await throttle(svc, `signin-client:${input.client}`, LINKS_PER_CLIENT_PER_MINUTE);
  await throttle(svc, `signin-address:${await sha256Hex(inboxOf(email))}`, LINKS_PER_ADDRESS_PER_MINUTE);
  const gate = await ssoGateFor(svc, email);
  if (gate && !gate.ownerExempt) return { ssoIssuerHost: gate.issuerHost };
  const token = await createLink(svc, { email, purpose: "sign_in", next: input.next ?? null });
  await sendPersonMail(svc, {
    to: email,
    subject: "Your sign-in link",
    text: [
      "Open this link to sign in to the email-authentication monitor:",
      "",
      linkUrl(input.origin, token),
      "",
      "It works once and expires in 15 minutes. If you did not ask for it, ignore this message.",
    ].join("\n"),
  });
  return { ssoIssuerHost: gate?.issuerHost ?? null };
}

/** Mails an invitation (the same link mechanism); throttled per inviting client like sign-in links. */
export async function mailInvitation(
  svc: Services,
  input: { email: string; teamId: number; teamName: string; role: MemberRole; invitedBy: number; inviterEmail: string; origin: string; client: string },
  /** The invitation's audit entry, written with the link. */
  entry: Statement,
): Promise<void> {
  await throttle(svc, `signin-client:${input.client}`, LINKS_PER_CLIENT_PER_MINUTE);
  const token = await createLink(svc, { email: input.email, purpose: "invite", teamId: input.teamId, role: input.role, invitedBy: input.invitedBy }, [entry]);
  await sendPersonMail(svc, {
    to: input.email,
    subject: `You are invited to ${input.teamName}`,
    text: [
      `${input.inviterEmail} invited you to the team "${input.teamName}" as ${input.role}.`,
      "",
      "Open this link to accept and sign in:",
      "",
      linkUrl(input.origin, token),
      "",
      "It works once and expires in 15 minutes.",
    ].join("\n"),
  });
}

export type LinkRow = typeof signInLinks.$inferSelect;

/** A link that is still usable (unused, unexpired), or null. Does not consume it. */
export async function peekLink(svc: Services, token: string): Promise<LinkRow | null> {
  if (!/^[0-9A-Za-z]{43}$/.test(token)) return null;
  const row = await svc.db.query.signInLinks.findFirst({
    where: and(eq(signInLinks.tokenHash, await sha256Hex(token)), isNull(signInLinks.usedAt), gt(signInLinks.expiresAt, svc.clock.now())),
  });
  return row ?? null;
}

/** Consumes a link exactly once: the guarded update lets only one of two concurrent uses through. */
export async function consumeLink(svc: Services, token: string): Promise<LinkRow | null> {
  if (!/^[0-9A-Za-z]{43}$/.test(token)) return null;
  const now = svc.clock.now();
  const [row] = await svc.db
    .update(signInLinks)
    .set({ usedAt: now })
    .where(and(eq(signInLinks.tokenHash, await sha256Hex(token)), isNull(signInLinks.usedAt), gt(signInLinks.expiresAt, now)))
    .returning();
  return row ?? null;
}
