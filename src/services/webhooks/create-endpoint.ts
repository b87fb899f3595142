// Creates a webhook endpoint within the plan's allowance, with a fresh secret sealed at rest.
// Does I/O (DNS for the target check, D1).
import { and, eq, sql } from "drizzle-orm";
import { generateSecret } from "../../core/webhooks";
import { type Plan, webhookEndpoints } from "../../db/schema";
import { conflict } from "../../lib/errors";
import { PLAN_LIMITS } from "../../lib/plans";
import type { Services } from "../../services";
import { auditWhen, urlForAudit } from "../audit-when";
import { commit } from "../commit";
import { getEndpointInTeam, normalizeDomainIds, normalizeEvents } from "./endpoints";
import { sealSecret, secretKeyMissing } from "./secrets";
import { assertTargetAllowed } from "./target";
import { type EndpointView, endpointView } from "./views";
import { type ServiceContext, requireWrite } from "../context";

export interface CreateEndpointInput {
  url: string;
  events: string[];
  description?: string | null;
  domain_ids?: number[] | null;
}

export async function createEndpoint(svc: Services, ctx: ServiceContext, plan: Plan, input: CreateEndpointInput): Promise<EndpointView> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const events = normalizeEvents(input.events);
  const domainIds = await normalizeDomainIds(svc, teamId, input.domain_ids);
  const limit = PLAN_LIMITS[plan].webhook_endpoints;
  await assertWithinAllowance(svc, teamId, limit);
  const url = await assertTargetAllowed(svc, input.url);
  if (svc.config.webhookSecretKey === null) throw secretKeyMissing();
  const secret = generateSecret();
  const now = svc.clock.now();
  // One statement checks the allowance and inserts, so two concurrent creates cannot both pass it.
  // The secret is sealed for the new row's id (its binding), so the row starts disabled without one.
  const inserted = await svc.db.all<{ id: number }>(sql`
    INSERT INTO webhook_endpoints (team_id, url, description, events, domain_ids, enabled, secret_enc, failure_count, created_at)
    SELECT ${teamId}, ${url}, ${input.description ?? null}, ${JSON.stringify(events)},
           ${domainIds === null ? null : JSON.stringify(domainIds)}, 0, ${UNSEALED}, 0, ${now.getTime()}
    WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE team_id = ${teamId}) < ${limit}
    RETURNING id`);
  const id = inserted[0]?.id;
  if (id === undefined) throw allowanceReached(limit);
  try {
    const sealed = await sealSecret(svc, secret, id);
    // The endpoint becomes live with this update; its audit entry is written with it, on the same guard.
    const live = and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.secretEnc, UNSEALED));
    await commit(svc, [
      auditWhen(
        svc,
        ctx,
        {
          verb: "webhook_endpoint.create",
          target: { type: "webhook_endpoint", id },
          summary: `endpoint ${urlForAudit(url)} events: ${events.join(", ")}${domainIds === null ? "" : `; domains ${domainIds.join(", ")}`}`,
        },
        { when: sql`EXISTS (SELECT 1 FROM webhook_endpoints WHERE ${live})` },
      ),
      svc.db.update(webhookEndpoints).set({ secretEnc: sealed, enabled: true }).where(live),
    ]);
  } catch (error) {
    await svc.db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    throw error;
  }
  return endpointView(await getEndpointInTeam(svc, teamId, id), secret);
}

/** The placeholder of a row whose secret is being sealed (never opened: it is no sealed secret). */
const UNSEALED = "unsealed";

const allowanceReached = (limit: number) => conflict(`The plan allows ${limit} webhook endpoint${limit === 1 ? "" : "s"}; delete one or upgrade the plan.`);

/** Cheap early check (before DNS); the insert re-checks atomically. */
async function assertWithinAllowance(svc: Services, teamId: number, limit: number): Promise<void> {
  const rows = await svc.db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM webhook_endpoints WHERE team_id = ${teamId}`);
  if ((rows[0]?.n ?? 0) >= limit) throw allowanceReached(limit);
}
