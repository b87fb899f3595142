// Digest settings: the team's time zone, local hour and weekday (owner and admin), and each member's own
// frequency (weekly, daily or off; any role). Defaults when nothing is stored: UTC, 08:00, Monday, weekly
// (docs/decisions.md D185). Does I/O (D1).
import { and, eq } from "drizzle-orm";
import { canonicalTimeZone } from "../../core/notify/digest-schedule";
import { type DigestFrequency, DIGEST_FREQUENCIES, memberDigestPrefs, memberships, teamDigestSettings } from "../../db/schema";
import { notFound, validationFailed, type FieldErrors } from "../../lib/errors";
import type { Services } from "../../services";
import { audit } from "../audit-when";
import { commit } from "../commit";
import { requireWrite, type ServiceContext } from "../context";

export const DIGEST_DEFAULTS = { time_zone: "UTC", hour: 8, weekday: 1 } as const;
export const DEFAULT_FREQUENCY: DigestFrequency = "weekly";

export interface DigestSettings {
  time_zone: string;
  /** Local hour, 0-23, at which digests go out. */
  hour: number;
  /** ISO weekday of the weekly digest, 1 = Monday ... 7 = Sunday. */
  weekday: number;
}

export async function getDigestSettings(svc: Services, ctx: ServiceContext): Promise<DigestSettings> {
  const row = await svc.db.query.teamDigestSettings.findFirst({ where: eq(teamDigestSettings.teamId, ctx.teamId) });
  return row ? { time_zone: row.timeZone, hour: row.hour, weekday: row.weekday } : { ...DIGEST_DEFAULTS };
}

export async function setDigestSettings(
  svc: Services,
  ctx: ServiceContext,
  input: { time_zone: string; hour: number; weekday: number },
): Promise<DigestSettings> {
  requireWrite(ctx);
  const errors: FieldErrors = {};
  const zone = canonicalTimeZone(input.time_zone.trim());
  if (!zone) errors.time_zone = ["must be an IANA time zone, e.g. Europe/Paris or America/New_York"];
  if (!Number.isInteger(input.hour) || input.hour < 0 || input.hour > 23) errors.hour = ["must be a whole hour from 0 to 23"];
  if (!Number.isInteger(input.weekday) || input.weekday < 1 || input.weekday > 7) errors.weekday = ["must be 1 (Monday) to 7 (Sunday)"];
  if (!zone || Object.keys(errors).length > 0) throw validationFailed(errors, "The digest settings are invalid.");
  const values = { timeZone: zone, hour: input.hour, weekday: input.weekday, updatedAt: svc.clock.now() };
  const days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
  await commit(svc, [
    svc.db
      .insert(teamDigestSettings)
      .values({ teamId: ctx.teamId, ...values })
      .onConflictDoUpdate({ target: teamDigestSettings.teamId, set: values }),
    audit(svc, ctx, {
      verb: "digest_settings.update",
      target: { type: "team", id: ctx.teamId },
      summary: `digests at ${String(input.hour).padStart(2, "0")}:00 ${zone}, weekly ones on ${days[input.weekday - 1]}`,
    }),
  ]);
  return { time_zone: zone, hour: input.hour, weekday: input.weekday };
}

export async function getMemberDigest(svc: Services, teamId: number, userId: number): Promise<DigestFrequency> {
  const row = await svc.db.query.memberDigestPrefs.findFirst({
    where: and(eq(memberDigestPrefs.teamId, teamId), eq(memberDigestPrefs.userId, userId)),
  });
  return row?.frequency ?? DEFAULT_FREQUENCY;
}

/** A member sets their own frequency in a team they belong to (the caller passes the signed-in user). */
export async function setMemberDigest(svc: Services, teamId: number, userId: number, frequency: string): Promise<DigestFrequency> {
  const chosen = DIGEST_FREQUENCIES.find((f) => f === frequency);
  if (!chosen) throw validationFailed({ frequency: ["must be weekly, daily or off"] });
  const member = await svc.db.query.memberships.findFirst({ where: and(eq(memberships.teamId, teamId), eq(memberships.userId, userId)) });
  if (!member) throw notFound("Team membership");
  const now = svc.clock.now();
  await svc.db
    .insert(memberDigestPrefs)
    .values({ teamId, userId, frequency: chosen, updatedAt: now })
    .onConflictDoUpdate({ target: [memberDigestPrefs.teamId, memberDigestPrefs.userId], set: { frequency: chosen, updatedAt: now } });
  return chosen;
}
