// Queues an on-demand check of a verified domain (202). Does I/O (D1, queue).
import { conflict } from "../../lib/errors";
import type { Services } from "../../services";
import { enqueueChecks, newCheckId } from "../checks/schedule";
import { getDomainInTeam } from "./get-domain";

export async function requestCheck(svc: Services, teamId: number, domainId: number): Promise<{ check_id: string; status: "queued" }> {
  const domain = await getDomainInTeam(svc, teamId, domainId);
  if (!domain.verified) throw conflict("Verify the domain's ownership record before checking it.", "domain_not_verified");
  const checkId = newCheckId();
  await enqueueChecks(svc, [{ domain_id: domain.id, check_id: checkId, trigger: "manual" }]);
  return { check_id: checkId, status: "queued" };
}
