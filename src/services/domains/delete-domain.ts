// Removes a domain and (by cascade) its checks, diffs, DKIM inventory, reports and alerts; domain.deleted in the same batch. Does I/O (D1).
import { and, eq } from "drizzle-orm";
import { domains } from "../../db/schema";
import type { Services } from "../../services";
import { commit } from "../commit";
import { buildEvent } from "../events/emit";
import { getDomainInTeam } from "./get-domain";
import { domainRef } from "./views";
import { type ServiceContext, requireWrite } from "../context";

export async function deleteDomain(svc: Services, ctx: ServiceContext, domainId: number): Promise<void> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const now = svc.clock.now();
  // events.domain_id has no foreign key, so the event outlives the row it describes.
  const event = buildEvent(svc.db, { type: "domain.deleted", teamId, domain: domainRef(domain), data: {} }, now);
  await commit(svc, [event.statement, svc.db.delete(domains).where(and(eq(domains.id, domain.id), eq(domains.teamId, teamId)))], [event.id]);
}
