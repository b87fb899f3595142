// Rules: which alerts a channel takes (docs/decisions.md D180). By kind (none listed: every kind), a minimum
// severity, domains (none listed: every domain of the team) and a cooldown per (rule, domain, kind). A
// channel holds at most RULES_PER_CHANNEL rules; an alert goes to a channel once even when several match.
import { and, eq, inArray, sql } from "drizzle-orm";
import { SEVERITY_ORDER, severityRank } from "../../core/notify/types";
import { SEVERITIES, type Severity } from "../../core/types";
import { domains, notificationRules } from "../../db/schema";
import { conflict, notFound, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { ALERT_KINDS } from "../alerts/types";
import { auditWhen, batchable } from "../audit-when";
import { commit, type Statement } from "../commit";
import { type ServiceContext, requireWrite } from "../context";
import { type RuleRow, type RuleView, ruleView } from "./channel-views";

export const RULES_PER_CHANNEL = 10;
export const MAX_COOLDOWN_MINUTES = 1_440;
export const DEFAULT_COOLDOWN_MINUTES = 30;

export interface RuleInput {
  kinds?: string[] | null;
  min_severity?: string;
  domain_ids?: number[] | null;
  cooldown_minutes?: number;
}

/** The default a new channel gets when no rule is given: every kind and domain; PagerDuty pages from High up. */
export const defaultRule = (kind: string): RuleInput => ({ kinds: null, min_severity: kind === "pagerduty" ? "High" : "Medium", domain_ids: null });

/** Checked values of one rule, or a 422 naming each bad field. Domains must be the team's own (another team's id is refused like a missing one). */
export async function normalizeRule(svc: Services, teamId: number, input: RuleInput) {
  const errors: Record<string, string[]> = {};
  const kinds = input.kinds && input.kinds.length > 0 ? [...new Set(input.kinds)] : null;
  const unknown = (kinds ?? []).filter((k) => !(ALERT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) errors.kinds = [`unknown alert kind: ${unknown.join(", ")} (one of ${ALERT_KINDS.join(", ")})`];
  const minSeverity = input.min_severity ?? "Medium";
  if (!(SEVERITIES as readonly string[]).includes(minSeverity)) errors.min_severity = [`must be one of ${SEVERITY_ORDER.join(", ")}`];
  const cooldown = input.cooldown_minutes ?? DEFAULT_COOLDOWN_MINUTES;
  if (!Number.isInteger(cooldown) || cooldown < 0 || cooldown > MAX_COOLDOWN_MINUTES)
    errors.cooldown_minutes = [`must be a whole number of minutes from 0 to ${MAX_COOLDOWN_MINUTES}`];
  const ids = input.domain_ids && input.domain_ids.length > 0 ? [...new Set(input.domain_ids)] : null;
  if (ids !== null) {
    const found = await svc.db
      .select({ id: domains.id })
      .from(domains)
      .where(and(eq(domains.teamId, teamId), inArray(domains.id, ids)));
    const known = new Set(found.map((d) => d.id));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) errors.domain_ids = [`no such domain in this team: ${missing.join(", ")}`];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { kinds, minSeverity: minSeverity as Severity, domainIds: ids, cooldownMinutes: cooldown };
}

/** Does this rule take an alert of `kind` and `severity` on `domainId`? */
export function ruleMatches(
  rule: Pick<RuleRow, "kinds" | "minSeverity" | "domainIds">,
  alert: { kind: string; severity: string; domainId: number | null },
): boolean {
  if (rule.kinds && rule.kinds.length > 0 && !rule.kinds.includes(alert.kind)) return false;
  if (severityRank(alert.severity as Severity) > severityRank(rule.minSeverity as Severity)) return false;
  if (rule.domainIds && rule.domainIds.length > 0) return alert.domainId !== null && rule.domainIds.includes(alert.domainId);
  return true;
}

export async function rulesOfChannel(svc: Services, teamId: number, channelId: number): Promise<RuleRow[]> {
  return svc.db
    .select()
    .from(notificationRules)
    .where(and(eq(notificationRules.teamId, teamId), eq(notificationRules.channelId, channelId)))
    .orderBy(notificationRules.id);
}

/** Adds a rule to a channel of the team (the caller checked the channel is the team's). */
export async function insertRule(
  svc: Services,
  teamId: number,
  channelId: number,
  input: RuleInput,
  /** Statements for the insert's own batch, right after it (e.g. its audit entry, guarded on `changes() > 0`). */
  after: (rule: ReturnType<typeof describeRule>) => Statement[] = () => [],
): Promise<RuleRow> {
  const r = await normalizeRule(svc, teamId, input);
  const now = svc.clock.now();
  // One statement checks the per-channel allowance and inserts, so two concurrent adds cannot both pass it.
  const [rows] = await commit(svc, [
    batchable(
      svc,
      svc.db.all<{ id: number }>(sql`
    INSERT INTO notification_rules (team_id, channel_id, kinds, min_severity, domain_ids, cooldown_minutes, created_at)
    SELECT ${teamId}, ${channelId}, ${r.kinds === null ? null : JSON.stringify(r.kinds)}, ${r.minSeverity},
           ${r.domainIds === null ? null : JSON.stringify(r.domainIds)}, ${r.cooldownMinutes}, ${now.getTime()}
    WHERE (SELECT COUNT(*) FROM notification_rules WHERE channel_id = ${channelId}) < ${RULES_PER_CHANNEL}
    RETURNING id`),
    ),
    ...after(describeRule(r)),
  ]);
  const id = rows[0]?.id;
  if (id === undefined) throw conflict(`A channel holds at most ${RULES_PER_CHANNEL} rules; delete one first.`);
  const row = await svc.db.query.notificationRules.findFirst({ where: eq(notificationRules.id, id) });
  if (!row) throw notFound("Rule");
  return row;
}

/** A rule in words, for audit summaries. */
export function describeRule(r: { kinds: string[] | null; minSeverity: string; domainIds: number[] | null; cooldownMinutes: number }): string {
  const kinds = r.kinds === null ? "every kind" : r.kinds.join(", ");
  const where = r.domainIds === null ? "every domain" : `domains ${r.domainIds.join(", ")}`;
  return `${kinds} from ${r.minSeverity} up on ${where}, cooldown ${r.cooldownMinutes} min`;
}

export async function addRule(svc: Services, ctx: ServiceContext, channelId: number, input: RuleInput): Promise<RuleView> {
  requireWrite(ctx);
  await assertChannelInTeam(svc, ctx.teamId, channelId);
  const row = await insertRule(svc, ctx.teamId, channelId, input, (words) => [
    auditWhen(
      svc,
      ctx,
      { verb: "notification_rule.create", target: { type: "notification_rule", id: 0 }, summary: `rule on channel ${channelId}: ${words}` },
      { when: sql`changes() > 0`, targetId: sql`last_insert_rowid()` },
    ),
  ]);
  return ruleView(row);
}

export async function deleteRule(svc: Services, ctx: ServiceContext, channelId: number, ruleId: number): Promise<void> {
  requireWrite(ctx);
  const where = and(eq(notificationRules.id, ruleId), eq(notificationRules.channelId, channelId), eq(notificationRules.teamId, ctx.teamId));
  const rule = await svc.db.query.notificationRules.findFirst({ where });
  if (!rule) throw notFound("Rule");
  const [, gone] = await commit(svc, [
    auditWhen(
      svc,
      ctx,
      {
        verb: "notification_rule.delete",
        target: { type: "notification_rule", id: ruleId },
        summary: `rule on channel ${channelId} deleted: ${describeRule(rule)}`,
      },
      { when: sql`EXISTS (SELECT 1 FROM notification_rules WHERE ${where})` },
    ),
    svc.db.delete(notificationRules).where(where).returning({ id: notificationRules.id }),
  ]);
  if (gone.length === 0) throw notFound("Rule");
}

async function assertChannelInTeam(svc: Services, teamId: number, channelId: number): Promise<void> {
  const row = await svc.db.all<{ id: number }>(sql`SELECT id FROM notification_channels WHERE id = ${channelId} AND team_id = ${teamId}`);
  if (row.length === 0) throw notFound("Channel");
}
