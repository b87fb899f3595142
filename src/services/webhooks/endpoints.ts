// Reading and deleting a team's webhook endpoints; the event/domain subscription rules shared by
// create and update. Does I/O (D1; deleting also the team's webhook log).
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import { domains, webhookEndpoints } from "../../db/schema";
import { notFound, validationFailed } from "../../lib/errors";
import type { PaginationQuery } from "../../lib/pagination";
import { pageOffset } from "../../lib/pagination";
import { PLAN_LIMITS } from "../../lib/plans";
import type { Plan } from "../../db/schema";
import type { Services } from "../../services";
import { EVENT_TYPES } from "../events/emit";
import { auditWhen, urlForAudit } from "../audit-when";
import { commit } from "../commit";
import { teamLog } from "./team-log";
import { type EndpointRow, endpointView } from "./views";
import { type ServiceContext, requireWrite } from "../context";

export async function getEndpointInTeam(svc: Services, teamId: number, id: number): Promise<EndpointRow> {
  const row = await svc.db.query.webhookEndpoints.findFirst({
    where: and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.teamId, teamId)),
  });
  if (!row) throw notFound("Webhook endpoint");
  return row;
}

export async function getEndpoint(svc: Services, ctx: ServiceContext, id: number) {
  return endpointView(await getEndpointInTeam(svc, ctx.teamId, id));
}

export async function listEndpoints(svc: Services, ctx: ServiceContext, plan: Plan, q: PaginationQuery) {
  const { teamId } = ctx;
  const where = eq(webhookEndpoints.teamId, teamId);
  const [rows, totals] = await svc.db.batch([
    svc.db.select().from(webhookEndpoints).where(where).orderBy(desc(webhookEndpoints.id)).limit(q.per_page).offset(pageOffset(q)),
    svc.db.select({ n: count() }).from(webhookEndpoints).where(where),
  ]);
  return { rows: rows.map((r) => endpointView(r)), total: totals[0]?.n ?? 0, limit: PLAN_LIMITS[plan].webhook_endpoints };
}

/**
 * Deletes the endpoint and then its deliveries in the team's webhook log (spec: "and its delivery log").
 * Endpoint ids are never reused, so a failure between the two leaves deliveries nothing can reach; a
 * message for one finds no endpoint and does nothing, and the 30-day purge removes them.
 */
export async function deleteEndpoint(svc: Services, ctx: ServiceContext, id: number): Promise<void> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const where = and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.teamId, teamId));
  const endpoint = await getEndpointInTeam(svc, teamId, id);
  const [, gone] = await commit(svc, [
    auditWhen(
      svc,
      ctx,
      {
        verb: "webhook_endpoint.delete",
        target: { type: "webhook_endpoint", id },
        summary: `endpoint ${urlForAudit(endpoint.url)} deleted with its delivery log`,
      },
      { when: sql`EXISTS (SELECT 1 FROM webhook_endpoints WHERE ${where})` },
    ),
    svc.db.delete(webhookEndpoints).where(where).returning({ id: webhookEndpoints.id }),
  ]);
  if (gone.length === 0) throw notFound("Webhook endpoint");
  await teamLog(svc, { id: teamId }).deleteEndpoint(id);
}

const KNOWN = new Set<string>([...EVENT_TYPES, "*"]);

/** Event types: non-empty, each known or "*" (docs/decisions.md D12); duplicates are dropped. */
export function normalizeEvents(events: string[]): string[] {
  const unknown = events.filter((e) => !KNOWN.has(e));
  if (events.length === 0) throw validationFailed({ events: ["subscribe to at least one event type, or *"] });
  if (unknown.length > 0) throw validationFailed({ events: [`unknown event types: ${unknown.join(", ")}`] });
  return [...new Set(events)];
}

/** domain_ids: null means every domain; otherwise each id must be a domain of this team (else 422). */
export async function normalizeDomainIds(svc: Services, teamId: number, ids: number[] | null | undefined): Promise<number[] | null> {
  if (ids === null || ids === undefined) return null;
  const unique = [...new Set(ids)];
  if (unique.length === 0) throw validationFailed({ domain_ids: ["give at least one domain id, or null for all domains"] });
  const found = await svc.db
    .select({ id: domains.id })
    .from(domains)
    .where(and(eq(domains.teamId, teamId), inArray(domains.id, unique)));
  const known = new Set(found.map((r) => r.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length > 0) throw validationFailed({ domain_ids: [`unknown domain ids: ${missing.join(", ")}`] });
  return unique.sort((a, b) => a - b);
}
