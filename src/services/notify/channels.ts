// Notification channels of a team (docs/decisions.md D176-D178): create within the plan's allowance with
// their rules, list, read, change, delete; an outside email address confirms by link before anything is
// sent to it (D177). Does I/O (D1, DNS for chat targets, email for the confirmation).
import { and, count, eq, gt, inArray, sql } from "drizzle-orm";
import { type ChannelKind, channelSubscribers, memberships, notificationChannels, notificationRules, type Plan } from "../../db/schema";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { ApiError, conflict, notFound, validationFailed } from "../../lib/errors";
import { PLAN_LIMITS } from "../../lib/plans";
import { escapeHtml } from "../../core/notify/render-text";
import type { Services } from "../../services";
import { normalizeEmail } from "../accounts/links";
import { audit, auditWhen, batchable, urlForAudit } from "../audit-when";
import { commit } from "../commit";
import { type ServiceContext, requireWrite, systemContext } from "../context";
import { assertTargetAllowed } from "../webhooks/target";
import { type ChannelRow, type ChannelView, channelView } from "./channel-views";
import { workOrigin } from "./links";
import { RULES_PER_CHANNEL, type RuleInput, defaultRule, insertRule, normalizeRule } from "./rules";
import { sealTarget, targetHint } from "./sealed-target";
import { sendMail } from "./send-mail";

export const MAX_NAME_LENGTH = 100;
/** An address has this long to confirm; afterwards the owner sends the confirmation again (D177). */
export const CONFIRM_TTL_MS = 7 * 24 * 3_600_000;
/** PagerDuty integration (routing) keys are 32 characters (Events API v2, "routing_key"). */
const ROUTING_KEY = /^[A-Za-z0-9]{32}$/;

export interface CreateChannelInput {
  kind: ChannelKind;
  name: string;
  /** Slack incoming webhook or Teams Workflows webhook URL. */
  url?: string;
  /** PagerDuty Events API v2 routing key. */
  routing_key?: string;
  /** Email: to the members who opt in, or to one outside address that confirms first. */
  email_mode?: "members" | "address";
  address?: string;
  /** None given: one rule for every kind and domain (defaultRule). */
  rules?: RuleInput[];
}

export interface UpdateChannelInput {
  name?: string;
  enabled?: boolean;
  url?: string;
  routing_key?: string;
}

const UNSEALED = "unsealed";

/** The plain secret target of a chat or PagerDuty channel, checked; null for email. */
async function checkedTarget(svc: Services, kind: ChannelKind, input: { url?: string; routing_key?: string }): Promise<string | null> {
  if (kind === "slack" || kind === "teams") {
    if (!input.url) throw validationFailed({ url: [`a ${kind === "slack" ? "Slack incoming webhook" : "Teams Workflows webhook"} URL is required`] });
    // The same rules as webhook endpoints: https, no private or reserved addresses (docs/decisions.md D14).
    return assertTargetAllowed(svc, input.url);
  }
  if (kind === "pagerduty") {
    const key = input.routing_key?.trim() ?? "";
    if (!ROUTING_KEY.test(key)) throw validationFailed({ routing_key: ["must be the 32-character integration key of a PagerDuty Events API v2 integration"] });
    return key;
  }
  return null;
}

function checkedName(name: string | undefined): string {
  const n = (name ?? "").trim();
  if (n === "" || n.length > MAX_NAME_LENGTH) throw validationFailed({ name: [`must be 1 to ${MAX_NAME_LENGTH} characters`] });
  return n;
}

export async function createChannel(svc: Services, ctx: ServiceContext, plan: Plan, input: CreateChannelInput): Promise<ChannelView> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const name = checkedName(input.name);
  const email = input.kind === "email" ? emailSetup(input) : null;
  const rules = input.rules && input.rules.length > 0 ? input.rules : [defaultRule(input.kind)];
  if (rules.length > RULES_PER_CHANNEL) throw validationFailed({ rules: [`at most ${RULES_PER_CHANNEL} rules per channel`] });
  for (const r of rules) await normalizeRule(svc, teamId, r); // every rule is checked before anything is written
  const limit = PLAN_LIMITS[plan].notification_channels;
  await assertWithinAllowance(svc, teamId, limit);
  const target = await checkedTarget(svc, input.kind, input);
  if (target !== null && svc.config.webhookSecretKey === null)
    throw new ApiError(503, "dependency_unavailable", "Channel secrets cannot be stored: the WEBHOOK_SECRET_KEY secret is not configured.");
  if (email?.mode === "address" && workOrigin(svc) === null)
    throw new ApiError(503, "dependency_unavailable", "Confirmation links cannot be made: set SITE_URL (docs/decisions.md D148).");
  const now = svc.clock.now();
  // One statement checks the allowance and inserts; a channel with a secret starts disabled until it is sealed.
  // Its audit entry right after, written only when the insert passed the allowance, naming the new row's id.
  const [inserted] = await commit(svc, [
    batchable(
      svc,
      svc.db.all<{ id: number }>(sql`
    INSERT INTO notification_channels (team_id, kind, name, email_mode, address, target_enc, enabled, failure_count, created_at)
    SELECT ${teamId}, ${input.kind}, ${name}, ${email?.mode ?? null}, ${email?.address ?? null},
           ${target === null ? null : UNSEALED}, ${target === null ? 1 : 0}, 0, ${now.getTime()}
    WHERE (SELECT COUNT(*) FROM notification_channels WHERE team_id = ${teamId}) < ${limit}
    RETURNING id`),
    ),
    auditWhen(
      svc,
      ctx,
      {
        verb: "notification_channel.create",
        target: { type: "notification_channel", id: 0 },
        summary: `${input.kind} channel "${name}"${channelDestination(input.kind, email, target)}; ${rules.length} rule${rules.length === 1 ? "" : "s"}`,
      },
      { when: sql`changes() > 0`, targetId: sql`last_insert_rowid()` },
    ),
  ]);
  const id = inserted[0]?.id;
  if (id === undefined) throw allowanceReached(limit);
  try {
    if (target !== null) {
      const sealed = await sealTarget(svc, target, id);
      await svc.db
        .update(notificationChannels)
        .set({ targetEnc: sealed, targetHint: targetHint(input.kind as "slack" | "teams" | "pagerduty", target), enabled: true })
        .where(and(eq(notificationChannels.id, id), eq(notificationChannels.targetEnc, UNSEALED)));
    }
    for (const r of rules) await insertRule(svc, teamId, id, r);
  } catch (error) {
    await commit(svc, [
      audit(svc, ctx, { verb: "notification_channel.delete", target: { type: "notification_channel", id }, summary: `"${name}" removed: its setup failed` }),
      svc.db.delete(notificationChannels).where(eq(notificationChannels.id, id)),
    ]);
    throw error;
  }
  if (email?.mode === "address") await sendConfirmation(svc, teamId, id);
  return getChannel(svc, ctx, id);
}

/** Where a channel sends, as an audit summary may show it (never a routing key, a webhook URL's path only as "…"). */
function channelDestination(kind: ChannelKind, email: { mode: "members" | "address"; address: string | null } | null, target: string | null): string {
  if (kind === "email") return email?.mode === "address" ? ` to ${email.address}` : " to the members who opt in";
  if (kind === "pagerduty") return " to a PagerDuty integration";
  return target === null ? "" : ` to ${urlForAudit(target)}`;
}

function emailSetup(input: CreateChannelInput): { mode: "members" | "address"; address: string | null } {
  const mode = input.email_mode ?? (input.address ? "address" : "members");
  if (mode === "members") {
    if (input.address) throw validationFailed({ address: ['an address is given only with email_mode "address"'] });
    return { mode, address: null };
  }
  const address = normalizeEmail(input.address ?? "");
  if (address === null) throw validationFailed({ address: ["enter a valid email address"] });
  return { mode, address };
}

const allowanceReached = (limit: number) => conflict(`The plan allows ${limit} notification channel${limit === 1 ? "" : "s"}; delete one or upgrade the plan.`);

async function assertWithinAllowance(svc: Services, teamId: number, limit: number): Promise<void> {
  const [row] = await svc.db.select({ n: count() }).from(notificationChannels).where(eq(notificationChannels.teamId, teamId));
  if ((row?.n ?? 0) >= limit) throw allowanceReached(limit);
}

export async function channelRowInTeam(svc: Services, teamId: number, channelId: number): Promise<ChannelRow> {
  const row = await svc.db.query.notificationChannels.findFirst({
    where: and(eq(notificationChannels.id, channelId), eq(notificationChannels.teamId, teamId)),
  });
  if (!row) throw notFound("Channel");
  return row;
}

export async function getChannel(svc: Services, ctx: ServiceContext, channelId: number): Promise<ChannelView> {
  const row = await channelRowInTeam(svc, ctx.teamId, channelId);
  const [rules, subs] = await Promise.all([
    svc.db.select().from(notificationRules).where(eq(notificationRules.channelId, row.id)).orderBy(notificationRules.id),
    subscriberCounts(svc, ctx.teamId, [row.id]),
  ]);
  return channelView(row, rules, subs.get(row.id) ?? 0);
}

export async function listChannels(svc: Services, ctx: ServiceContext, plan: Plan): Promise<{ rows: ChannelView[]; limit: number }> {
  const rows = await svc.db.select().from(notificationChannels).where(eq(notificationChannels.teamId, ctx.teamId)).orderBy(notificationChannels.id);
  const ids = rows.map((r) => r.id);
  const rules =
    ids.length === 0 ? [] : await svc.db.select().from(notificationRules).where(inArray(notificationRules.channelId, ids)).orderBy(notificationRules.id);
  const subs = await subscriberCounts(svc, ctx.teamId, ids);
  return {
    rows: rows.map((r) =>
      channelView(
        r,
        rules.filter((x) => x.channelId === r.id),
        subs.get(r.id) ?? 0,
      ),
    ),
    limit: PLAN_LIMITS[plan].notification_channels,
  };
}

/** Opted-in members still in the team, per channel. */
async function subscriberCounts(svc: Services, teamId: number, channelIds: number[]): Promise<Map<number, number>> {
  if (channelIds.length === 0) return new Map();
  const rows = await svc.db
    .select({ channelId: channelSubscribers.channelId, n: count() })
    .from(channelSubscribers)
    .innerJoin(memberships, and(eq(memberships.teamId, channelSubscribers.teamId), eq(memberships.userId, channelSubscribers.userId)))
    .where(and(eq(channelSubscribers.teamId, teamId), inArray(channelSubscribers.channelId, channelIds)))
    .groupBy(channelSubscribers.channelId);
  return new Map(rows.map((r) => [r.channelId, r.n]));
}

export async function updateChannel(svc: Services, ctx: ServiceContext, channelId: number, input: UpdateChannelInput): Promise<ChannelView> {
  requireWrite(ctx);
  const row = await channelRowInTeam(svc, ctx.teamId, channelId);
  const set: Partial<typeof notificationChannels.$inferInsert> = {};
  if (input.name !== undefined) set.name = checkedName(input.name);
  if (input.url !== undefined || input.routing_key !== undefined) {
    if (row.kind === "email") throw validationFailed({ url: ["an email channel has no URL or routing key"] });
    const target = await checkedTarget(svc, row.kind, input);
    if (target !== null) {
      set.targetEnc = await sealTarget(svc, target, row.id);
      set.targetHint = targetHint(row.kind, target);
    }
  }
  if (input.enabled === true && !row.enabled) {
    // Re-enabling starts a fresh streak, as for webhook endpoints.
    Object.assign(set, { enabled: true, failureCount: 0, disabledAt: null, disabledReason: null });
  } else if (input.enabled === false && row.enabled) {
    Object.assign(set, { enabled: false, disabledAt: svc.clock.now(), disabledReason: "disabled by a member" });
  }
  if (Object.keys(set).length > 0) {
    const where = and(eq(notificationChannels.id, row.id), eq(notificationChannels.teamId, ctx.teamId));
    const changed = [
      set.name !== undefined && set.name !== row.name ? `name "${row.name}" -> "${set.name}"` : null,
      set.targetEnc !== undefined ? (row.kind === "pagerduty" ? "routing key replaced" : `url -> ${urlForAudit(input.url ?? "")}`) : null,
      set.enabled === true ? "enabled" : set.enabled === false ? "disabled" : null,
    ].filter((x) => x !== null);
    await commit(svc, [
      auditWhen(
        svc,
        ctx,
        {
          verb: "notification_channel.update",
          target: { type: "notification_channel", id: row.id },
          summary: `"${row.name}": ${changed.join("; ") || "saved unchanged"}`,
        },
        { when: sql`EXISTS (SELECT 1 FROM notification_channels WHERE ${where})` },
      ),
      svc.db.update(notificationChannels).set(set).where(where),
    ]);
  }
  return getChannel(svc, ctx, row.id);
}

export async function deleteChannel(svc: Services, ctx: ServiceContext, channelId: number): Promise<void> {
  requireWrite(ctx);
  const row = await channelRowInTeam(svc, ctx.teamId, channelId);
  const where = and(eq(notificationChannels.id, channelId), eq(notificationChannels.teamId, ctx.teamId));
  const [, gone] = await commit(svc, [
    auditWhen(
      svc,
      ctx,
      {
        verb: "notification_channel.delete",
        target: { type: "notification_channel", id: channelId },
        summary: `${row.kind} channel "${row.name}" deleted with its rules`,
      },
      { when: sql`EXISTS (SELECT 1 FROM notification_channels WHERE ${where})` },
    ),
    svc.db.delete(notificationChannels).where(where).returning({ id: notificationChannels.id }),
  ]);
  if (gone.length === 0) throw notFound("Channel");
}

/**
 * Mails a confirmation link to an address channel's address (a new one replaces the old). Nothing else is
 * ever sent to the address before it is confirmed (D177).
 */
export async function sendConfirmation(svc: Services, teamId: number, channelId: number): Promise<void> {
  const row = await channelRowInTeam(svc, teamId, channelId);
  if (row.kind !== "email" || row.emailMode !== "address" || row.address === null) throw conflict("Only an email channel to an address is confirmed.");
  if (row.confirmedAt !== null) throw conflict("This address has already confirmed.");
  const origin = workOrigin(svc);
  if (origin === null) throw new ApiError(503, "dependency_unavailable", "Confirmation links cannot be made: set SITE_URL (docs/decisions.md D148).");
  const token = randomBase62(40);
  const now = svc.clock.now();
  await svc.db
    .update(notificationChannels)
    .set({ confirmTokenHash: await sha256Hex(token), confirmExpiresAt: new Date(now.getTime() + CONFIRM_TTL_MS) })
    .where(eq(notificationChannels.id, row.id));
  const team = await svc.db.query.teams.findFirst({ where: (t, { eq: is }) => is(t.id, teamId), columns: { name: true } });
  const link = `${origin}/notifications/confirm/${token}`;
  const teamName = team?.name ?? "a team";
  const text =
    `Someone in the team "${teamName}" asked to send email-authentication alerts to this address (channel "${row.name}").\n\n` +
    `To receive them, confirm within 7 days:\n${link}\n\nIf you did not expect this, ignore this mail: nothing will be sent to you.\n`;
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif"><p>Someone in the team <strong>${escapeHtml(teamName)}</strong> asked to send email-authentication alerts to this address (channel <strong>${escapeHtml(row.name)}</strong>).</p><p><a href="${escapeHtml(link)}">Confirm this address</a> within 7 days.</p><p>If you did not expect this, ignore this mail: nothing will be sent to you.</p></body></html>`;
  const sent = await sendMail(svc, { to: row.address, subject: `Confirm alerts from ${teamName}`, text, html });
  if (!sent.ok) throw new ApiError(503, "dependency_unavailable", `The confirmation mail could not be sent: ${sent.error}`);
}

/** The link's landing: confirms the address (single use, before expiry). Answers the channel's name and team. */
export async function confirmChannelAddress(svc: Services, token: string): Promise<{ channel: string; address: string }> {
  if (!/^[A-Za-z0-9]{40}$/.test(token)) throw new ApiError(404, "not_found", "This confirmation link is not valid.");
  const now = svc.clock.now();
  const usable = and(eq(notificationChannels.confirmTokenHash, await sha256Hex(token)), gt(notificationChannels.confirmExpiresAt, now));
  const found = await svc.db.query.notificationChannels.findFirst({ where: usable, columns: { id: true, teamId: true, name: true, address: true } });
  // The recipient acts by the mailed link, not as a member: the entry names them (D241).
  const byRecipient = { ...systemContext(found?.teamId ?? 0), origin: { face: "system" as const, label: `the recipient ${found?.address ?? ""}`.trim() } };
  const [row] = found
    ? (
        await commit(svc, [
          auditWhen(
            svc,
            byRecipient,
            {
              verb: "notification_channel.confirm",
              target: { type: "notification_channel", id: found.id },
              summary: `${found.address} confirmed alerts of "${found.name}"`,
            },
            { when: sql`EXISTS (SELECT 1 FROM notification_channels WHERE ${usable})` },
          ),
          svc.db.update(notificationChannels).set({ confirmedAt: now, confirmTokenHash: null, confirmExpiresAt: null }).where(usable).returning(),
        ])
      )[1]
    : [];
  if (!row) throw new ApiError(410, "not_found", "This confirmation link has expired or was already used; ask the team to send a new one.");
  return { channel: row.name, address: row.address ?? "" };
}

/** A member opts in to (or out of) a members email channel of their team. Any role may: it is their own inbox. */
export async function setChannelSubscription(svc: Services, teamId: number, userId: number, channelId: number, on: boolean): Promise<void> {
  const row = await channelRowInTeam(svc, teamId, channelId);
  if (row.kind !== "email" || row.emailMode !== "members") throw conflict("Only an email channel to members takes subscriptions.");
  if (on) await svc.db.insert(channelSubscribers).values({ channelId, userId, teamId, createdAt: svc.clock.now() }).onConflictDoNothing();
  else await svc.db.delete(channelSubscribers).where(and(eq(channelSubscribers.channelId, channelId), eq(channelSubscribers.userId, userId)));
}

/** The members email channels a member has opted in to. */
export async function subscriptionsOf(svc: Services, teamId: number, userId: number): Promise<number[]> {
  const rows = await svc.db
    .select({ id: channelSubscribers.channelId })
    .from(channelSubscribers)
    .where(and(eq(channelSubscribers.teamId, teamId), eq(channelSubscribers.userId, userId)));
  return rows.map((r) => r.id);
}
