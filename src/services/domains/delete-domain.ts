// Removes a domain and (by cascade) its checks, diffs, DKIM inventory, report summaries and alerts;
// domain.deleted in the same batch; then its report object's storage (docs/decisions.md D124). Does I/O
// (D1, the domain's report object).
import { and, eq } from "drizzle-orm";
import { domains } from "../../db/schema";
import type { Services } from "../../services";
import { audit } from "../audit-when";
import { commit } from "../commit";
import { buildEvent } from "../events/emit";
import { getDomainInTeam } from "./get-domain";
import { domainStore } from "./domain-store";
import { domainRef } from "./views";
import { type ServiceContext, requireWrite } from "../context";

export async function deleteDomain(svc: Services, ctx: ServiceContext, domainId: number): Promise<void> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const now = svc.clock.now();
  // events.domain_id has no foreign key, so the event outlives the row it describes.
  const event = buildEvent(svc.db, { type: "domain.deleted", teamId, domain: domainRef(domain), data: {} }, now);
  await commit(
    svc,
    [
      event.statement,
      audit(svc, ctx, {
        verb: "domain.delete",
        target: { type: "domain", id: domain.id },
        summary: `deleted ${domain.name} and its reports, checks and alerts`,
      }),
      svc.db.delete(domains).where(and(eq(domains.id, domain.id), eq(domains.teamId, teamId))),
    ],
    [event.id],
  );
  // After the D1 delete committed: the id is never reused, so nothing can reach the object again; a
  // failure here leaves data no view can reach, never a domain without its reports.
  await domainStore(svc, domain).destroy();
}
