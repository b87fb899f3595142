// PATCH of an endpoint (docs/decisions.md D11, D13) and secret rotation with a 24 h overlap.
// Does I/O (DNS for a new target, D1; re-enabling also the team's webhook log).
import { and, eq, sql } from "drizzle-orm";
import { generateSecret } from "../../core/webhooks";
import { webhookEndpoints } from "../../db/schema";
import { conflict } from "../../lib/errors";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { getEndpointInTeam, normalizeDomainIds, normalizeEvents } from "./endpoints";
import { livePreviousSecrets, MAX_PREVIOUS_SECRETS, type PreviousSecret, sealSecret } from "./secrets";
import { assertTargetAllowed } from "./target";
import { teamLog } from "./team-log";
import { type EndpointRow, type EndpointView, endpointView } from "./views";
import { auditWhen, urlForAudit } from "../audit-when";
import { commit } from "../commit";
import { type ServiceContext, requireWrite } from "../context";

const msOf = (d: Date | null) => (d === null ? null : d.getTime());

export interface UpdateEndpointInput {
  url?: string;
  description?: string | null;
  events?: string[];
  domain_ids?: number[] | null;
  enabled?: boolean;
}

export async function updateEndpoint(svc: Services, ctx: ServiceContext, id: number, input: UpdateEndpointInput): Promise<EndpointView> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const current = await getEndpointInTeam(svc, teamId, id);
  const set: Partial<typeof webhookEndpoints.$inferInsert> = {};
  if (input.events !== undefined) set.events = normalizeEvents(input.events);
  if (input.domain_ids !== undefined) set.domainIds = await normalizeDomainIds(svc, teamId, input.domain_ids);
  if (input.description !== undefined) set.description = input.description;
  if (input.url !== undefined) set.url = await assertTargetAllowed(svc, input.url);
  if (input.enabled === true && !current.enabled) {
    // Re-enabling starts afresh: the disable reason is cleared and the failure streak reset, first in the
    // team's log (where outcomes count it), then in D1 unless a newer outcome already wrote it (D143).
    const streak = await teamLog(svc, { id: current.teamId }).resetStreak(
      current.id,
      { failureCount: current.failureCount, lastSuccessAt: msOf(current.lastSuccessAt), lastFailureAt: msOf(current.lastFailureAt) },
      svc.clock.now().getTime(),
    );
    Object.assign(set, {
      enabled: true,
      disabledAt: null,
      disabledReason: null,
      failureCount: sql`CASE WHEN stats_seq < ${streak.seq} THEN 0 ELSE failure_count END`,
      statsSeq: sql`MAX(stats_seq, ${streak.seq})`,
    });
  } else if (input.enabled === false && current.enabled) {
    Object.assign(set, { enabled: false, disabledAt: svc.clock.now(), disabledReason: "manual" });
  }
  if (Object.keys(set).length === 0) return endpointView(current);
  const where = and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.teamId, teamId));
  const [, updated] = await commit(svc, [
    auditWhen(
      svc,
      ctx,
      { verb: "webhook_endpoint.update", target: { type: "webhook_endpoint", id }, summary: changeSummary(current, set) },
      { when: sql`EXISTS (SELECT 1 FROM webhook_endpoints WHERE ${where})` },
    ),
    svc.db.update(webhookEndpoints).set(set).where(where).returning(),
  ]);
  return endpointView(updated[0] ?? current);
}

/** What a PATCH changed, in words (the URL by its origin only: its path or query may hold a secret). */
function changeSummary(current: EndpointRow, set: Partial<typeof webhookEndpoints.$inferInsert>): string {
  const parts: string[] = [];
  if (set.url !== undefined && set.url !== current.url) parts.push(`url ${urlForAudit(current.url)} -> ${urlForAudit(set.url)}`);
  if (set.events !== undefined) parts.push(`events: ${set.events.join(", ")}`);
  if (set.domainIds !== undefined) parts.push(set.domainIds === null ? "domains: all" : `domains: ${set.domainIds.join(", ")}`);
  if (set.description !== undefined) parts.push("description changed");
  if (set.enabled === true) parts.push("enabled");
  if (set.enabled === false) parts.push("disabled");
  return `endpoint ${urlForAudit(set.url ?? current.url)}: ${parts.join("; ") || "saved unchanged"}`;
}

/**
 * A new secret; every secret it replaces keeps signing for 24 hours from its replacement (Standard
 * Webhooks lets receivers verify any of several signatures). At most MAX_PREVIOUS_SECRETS replaced
 * secrets sign at once, so a delivery carries at most 1 + MAX_PREVIOUS_SECRETS signatures; one more
 * rotation inside that window is a 409 (docs/limits.md).
 */
export async function rotateSecret(svc: Services, ctx: ServiceContext, id: number): Promise<EndpointView> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const current = await getEndpointInTeam(svc, teamId, id);
  const now = svc.clock.now();
  const live = livePreviousSecrets(current, now);
  if (live.length >= MAX_PREVIOUS_SECRETS) {
    throw conflict(`This endpoint's secret was rotated ${live.length} times in the last 24 hours; wait until the oldest replaced secret expires.`);
  }
  const secret = generateSecret();
  const sealed = await sealSecret(svc, secret, current.id);
  const previous: PreviousSecret[] = [{ enc: current.secretEnc, expires_at: now.getTime() + DAY_MS }, ...live];
  // Guarded on the secret it replaces: of two concurrent rotations one wins, the other changes nothing (and records nothing).
  const replaces = and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.teamId, teamId), eq(webhookEndpoints.secretEnc, current.secretEnc));
  const [, [row]] = await commit(svc, [
    auditWhen(
      svc,
      ctx,
      {
        verb: "webhook_endpoint.rotate_secret",
        target: { type: "webhook_endpoint", id },
        summary: `secret of endpoint ${urlForAudit(current.url)} rotated; the replaced one signs until ${new Date(now.getTime() + DAY_MS).toISOString()}`,
      },
      { when: sql`EXISTS (SELECT 1 FROM webhook_endpoints WHERE ${replaces})` },
    ),
    svc.db
      .update(webhookEndpoints)
      .set({
        secretEnc: sealed,
        previousSecretEnc: JSON.stringify(previous),
        previousSecretExpiresAt: new Date(Math.max(...previous.map((p) => p.expires_at))),
      })
      .where(replaces)
      .returning(),
  ]);
  if (!row) throw conflict("The secret was rotated concurrently; fetch the endpoint and try again.");
  return endpointView(row ?? current, secret);
}
