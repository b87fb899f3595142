// Removes a domain and (by cascade) its checks, diffs, DKIM inventory, report summaries and alerts;
// domain.deleted in the same batch; then its report object's storage (docs/decisions.md D124). Does I/O
// (D1, the domain's report object).
import { and, eq } from "drizzle-orm";
import { domains, hostedMtaSts } from "../../db/schema";
import { conflict } from "../../lib/errors";
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
  // A hosted MTA-STS policy must be wound down first (RFC 8461 §8.3: mode none under a new id until the
  // old max_age ran out); deleting the domain would drop the row by cascade and leave its custom hostname
  // and id record in the operator's zone, serving nothing, while senders still hold the old policy.
  const hosted = await svc.db
    .select({ state: hostedMtaSts.state, safeToRemoveAt: hostedMtaSts.safeToRemoveAt })
    .from(hostedMtaSts)
    .where(and(eq(hostedMtaSts.domainId, domain.id), eq(hostedMtaSts.teamId, teamId)))
    .get();
  if (hosted) {
    throw conflict(
      hosted.state === "active"
        ? `${domain.name} has MTA-STS hosting on: turn it off first (senders are then told, RFC 8461 §8.3), and delete the domain once the hosting is removed.`
        : `The MTA-STS policy of ${domain.name} is being retired until ${hosted.safeToRemoveAt?.toISOString() ?? "its old max_age ran out"} (RFC 8461 §8.3); delete the domain after that.`,
    );
  }
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
