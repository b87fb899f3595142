// Creates a webhook endpoint within the plan's allowance, with a fresh secret sealed at rest.
// Does I/O (DNS for the target check, D1).
import { sql } from "drizzle-orm";
import { generateSecret } from "../../core/webhooks";
import type { Plan } from "../../db/schema";
import { conflict } from "../../lib/errors";
import { PLAN_LIMITS } from "../../lib/plans";
import type { Services } from "../../services";
import { getEndpointInTeam, normaliseDomainIds, normaliseEvents } from "./endpoints";
import { sealSecret } from "./secrets";
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
  const events = normaliseEvents(input.events);
  const domainIds = await normaliseDomainIds(svc, teamId, input.domain_ids);
  const limit = PLAN_LIMITS[plan].webhook_endpoints;
  await assertWithinAllowance(svc, teamId, limit);
  const url = await assertTargetAllowed(svc, input.url);
  const secret = generateSecret();
  const sealed = await sealSecret(svc, secret);
  const now = svc.clock.now();
  // One statement checks the allowance and inserts, so two concurrent creates cannot both pass it.
  const inserted = await svc.db.all<{ id: number }>(sql`
    INSERT INTO webhook_endpoints (team_id, url, description, events, domain_ids, enabled, secret_enc, failure_count, created_at)
    SELECT ${teamId}, ${url}, ${input.description ?? null}, ${JSON.stringify(events)},
           ${domainIds === null ? null : JSON.stringify(domainIds)}, 1, ${sealed}, 0, ${now.getTime()}
    WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE team_id = ${teamId}) < ${limit}
    RETURNING id`);
  const id = inserted[0]?.id;
  if (id === undefined) throw allowanceReached(limit);
  return endpointView(await getEndpointInTeam(svc, teamId, id), secret);
}

const allowanceReached = (limit: number) =>
  conflict(`The plan allows ${limit} webhook endpoint${limit === 1 ? "" : "s"}; delete one or upgrade the plan.`);

/** Cheap early check (before DNS); the insert re-checks atomically. */
async function assertWithinAllowance(svc: Services, teamId: number, limit: number): Promise<void> {
  const rows = await svc.db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM webhook_endpoints WHERE team_id = ${teamId}`);
  if ((rows[0]?.n ?? 0) >= limit) throw allowanceReached(limit);
}
