// Sending digests, from the every-minute cron: the members whose team has reached its digest hour in its
// own time zone today (and, for weekly digests, today is its weekday) and who have no digest for this
// period yet. Each
// send is claimed first in digest_sends (team, member, period) with INSERT ... ON CONFLICT DO NOTHING,
// so a cron that runs twice, overlaps, or runs again in the same hour never sends a second one
// (docs/decisions.md D185, D186). Bounded per run (docs/limits.md). Does I/O (D1, objects, email).
import { and, eq, sql } from "drizzle-orm";
import { type DigestLinks, renderDigest, type DigestModel } from "../../core/notify/digest";
import { type LocalMoment, localMoment } from "../../core/notify/digest-schedule";
import { digestSends } from "../../db/schema";
import type { Services } from "../../services";
import { workOrigin } from "../notify/links";
import { sendMail } from "../notify/send-mail";
import { digestFrequencyUrl, listUnsubscribeHeaders, unsubscribeUrl } from "../notify/unsubscribe";
import { buildDigest } from "./content";
import { DEFAULT_FREQUENCY, DIGEST_DEFAULTS } from "./settings";

/** Teams whose digests one cron run sends (the next minutes' runs take the rest of the day's). */
export const DIGEST_TEAMS_PER_RUN = 5;
/** Members read per run: the due members of the first DIGEST_TEAMS_PER_RUN teams among them. */
const MEMBERS_READ = 500;
/** D1 binds at most 100 parameters per statement: five per zone, plus the few of the query itself. */
const ZONES_PER_QUERY = 19;

export const DIGEST_SETTINGS_PATH = "/settings/notifications/digest";

interface DueMember {
  teamId: number;
  teamName: string;
  userId: number;
  email: string;
  frequency: "weekly" | "daily";
  period: string;
}

/** Each distinct zone a team set, plus the default, with its local moment now. */
async function dueSlots(svc: Services, now: Date): Promise<Array<{ zone: string; at: LocalMoment }>> {
  const rows = await svc.db.all<{ zone: string }>(sql`SELECT DISTINCT time_zone AS zone FROM team_digest_settings`);
  const zones = new Set([DIGEST_DEFAULTS.time_zone, ...rows.map((r) => r.zone)]);
  const out: Array<{ zone: string; at: LocalMoment }> = [];
  for (const zone of zones) {
    try {
      out.push({ zone, at: localMoment(now, zone) });
    } catch {
      // A zone this runtime no longer knows: that team's digests wait until it is set again.
      console.error(JSON.stringify({ level: "error", msg: "digest time zone unknown", zone }));
    }
  }
  return out;
}

/** The members due in one group of zones (their team's hour reached today), at most `limit`, without a digest row for their period. */
async function dueMembersIn(svc: Services, slots: Array<{ zone: string; at: LocalMoment }>, limit: number): Promise<DueMember[]> {
  const values = sql.join(
    slots.map((s) => sql`(${s.zone}, ${s.at.hour}, ${s.at.weekday}, ${s.at.date}, ${s.at.week})`),
    sql`, `,
  );
  // Teams without settings use the defaults; members without a preference get the default frequency.
  const rows = await svc.db.all<{ team_id: number; team_name: string; user_id: number; email: string; frequency: string; period: string }>(sql`
    WITH due(zone, hour, weekday, day, week) AS (VALUES ${values}),
    candidates AS (
      SELECT m.team_id, t.name AS team_name, m.user_id, u.email,
             COALESCE(p.frequency, ${DEFAULT_FREQUENCY}) AS frequency,
             CASE COALESCE(p.frequency, ${DEFAULT_FREQUENCY}) WHEN 'daily' THEN due.day ELSE due.week END AS period,
             COALESCE(s.weekday, ${DIGEST_DEFAULTS.weekday}) AS team_weekday, due.weekday AS today
      FROM memberships m
      JOIN teams t ON t.id = m.team_id
      JOIN users u ON u.id = m.user_id
      LEFT JOIN team_digest_settings s ON s.team_id = m.team_id
      LEFT JOIN member_digest_prefs p ON p.team_id = m.team_id AND p.user_id = m.user_id
      JOIN due ON due.zone = COALESCE(s.time_zone, ${DIGEST_DEFAULTS.time_zone}) AND due.hour >= COALESCE(s.hour, ${DIGEST_DEFAULTS.hour})
    )
    SELECT team_id, team_name, user_id, email, frequency, period FROM candidates c
    WHERE (c.frequency = 'daily' OR (c.frequency = 'weekly' AND c.team_weekday = c.today))
      AND NOT EXISTS (SELECT 1 FROM digest_sends d WHERE d.team_id = c.team_id AND d.user_id = c.user_id AND d.period = c.period)
    ORDER BY c.team_id, c.user_id
    LIMIT ${limit}`);
  return rows.map((r) => ({
    teamId: r.team_id,
    teamName: r.team_name,
    userId: r.user_id,
    email: r.email,
    frequency: r.frequency === "daily" ? "daily" : "weekly",
    period: r.period,
  }));
}

async function dueMembers(svc: Services, now: Date): Promise<DueMember[]> {
  const slots = await dueSlots(svc, now);
  const out: DueMember[] = [];
  for (let i = 0; i < slots.length && out.length < MEMBERS_READ; i += ZONES_PER_QUERY) {
    out.push(...(await dueMembersIn(svc, slots.slice(i, i + ZONES_PER_QUERY), MEMBERS_READ - out.length)));
  }
  return out;
}

/** Claims (team, member, period): true for the one caller that inserted the row. */
async function claim(svc: Services, m: DueMember, now: Date): Promise<boolean> {
  const rows = await svc.db
    .insert(digestSends)
    .values({ teamId: m.teamId, userId: m.userId, period: m.period, status: "sending", createdAt: now })
    .onConflictDoNothing()
    .returning({ period: digestSends.period });
  return rows.length === 1;
}

async function mark(svc: Services, m: DueMember, status: "sent" | "failed"): Promise<void> {
  await svc.db
    .update(digestSends)
    .set({ status, sentAt: status === "sent" ? svc.clock.now() : null })
    .where(and(eq(digestSends.teamId, m.teamId), eq(digestSends.userId, m.userId), eq(digestSends.period, m.period)));
}

async function linksFor(svc: Services, m: DueMember, siteUrl: string): Promise<DigestLinks> {
  const other = m.frequency === "weekly" ? "daily" : "weekly";
  return {
    unsubscribe: await unsubscribeUrl(svc, { purpose: "digest", teamId: m.teamId, userId: m.userId }),
    switchTo: { frequency: other, url: await digestFrequencyUrl(svc, m.teamId, m.userId, other) },
    settings: `${siteUrl}${DIGEST_SETTINGS_PATH}`,
  };
}

export interface DigestRun {
  due: number;
  teams: number;
  sent: number;
  failed: number;
  /** Already claimed by another run (a second cron, the same hour again). */
  skipped: number;
}

export async function runDueDigests(svc: Services, now: Date): Promise<DigestRun> {
  const result: DigestRun = { due: 0, teams: 0, sent: 0, failed: 0, skipped: 0 };
  const siteUrl = workOrigin(svc);
  const due = await dueMembers(svc, now);
  result.due = due.length;
  if (due.length === 0) return result;
  if (!siteUrl) {
    // Without SITE_URL (outside local development) there is no unsubscribe link, and a digest without one is not sent (D148).
    console.error(JSON.stringify({ level: "error", msg: "digests not sent: SITE_URL is not set", due: due.length }));
    return result;
  }
  const teams = [...new Set(due.map((m) => m.teamId))].slice(0, DIGEST_TEAMS_PER_RUN);
  result.teams = teams.length;
  for (const teamId of teams) {
    // One model per (team, frequency): every member due gets the same content.
    const models = new Map<string, Promise<DigestModel>>();
    for (const m of due.filter((d) => d.teamId === teamId)) {
      if (!(await claim(svc, m, now))) {
        result.skipped++;
        continue;
      }
      try {
        let model = models.get(m.frequency);
        if (!model) {
          const days = m.frequency === "weekly" ? 7 : 1;
          model = buildDigest(svc, { teamId, teamName: m.teamName, frequency: m.frequency, period: m.period, days, siteUrl });
          models.set(m.frequency, model);
        }
        const links = await linksFor(svc, m, siteUrl);
        const mail = renderDigest(await model, links);
        const sent = await sendMail(svc, { to: m.email, ...mail, headers: listUnsubscribeHeaders(links.unsubscribe) });
        await mark(svc, m, sent.ok ? "sent" : "failed");
        if (sent.ok) result.sent++;
        else {
          result.failed++;
          console.error(JSON.stringify({ level: "error", msg: "digest not sent", team_id: teamId, user_id: m.userId, error: sent.error }));
        }
      } catch (e) {
        // The claim stays (as failed): at most one digest per period, even when this one could not be built.
        await mark(svc, m, "failed");
        result.failed++;
        console.error(JSON.stringify({ level: "error", msg: "digest failed", team_id: teamId, user_id: m.userId, error: String(e) }));
      }
    }
  }
  return result;
}
