// Queues an on-demand check of a verified domain (202). Does I/O (D1, queue).
import { conflict } from "../../lib/errors";
import type { Services } from "../../services";
import { requireWrite, type ServiceContext } from "../context";
import { enqueueChecks, reserveCheck } from "./schedule";
import { getDomainInTeam } from "./get-domain";

export async function requestCheck(svc: Services, ctx: ServiceContext, domainId: number): Promise<{ check_id: string; status: "queued" }> {
  requireWrite(ctx);
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  if (!domain.verified) throw conflict("Verify the domain's ownership record before checking it.", "domain_not_verified");
  // A check already queued or running is returned as is (202, same id) instead of queueing another.
  const { checkId, created } = await reserveCheck(svc, domain.id, svc.clock.now());
  if (created) await enqueueChecks(svc, [{ domain_id: domain.id, check_id: checkId, trigger: "manual" }]);
  return { check_id: checkId, status: "queued" };
}
