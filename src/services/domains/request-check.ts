// Queues an on-demand check of a verified domain (202). Does I/O (D1, queue).
import { sql } from "drizzle-orm";
import { conflict } from "../../lib/errors";
import { auditWhen } from "../audit-when";
import type { Services } from "../../services";
import { requireWrite, type ServiceContext } from "../context";
import { enqueueChecks, reserveCheck } from "./schedule";
import { getDomainInTeam } from "./get-domain";

export async function requestCheck(svc: Services, ctx: ServiceContext, domainId: number): Promise<{ check_id: string; status: "queued" }> {
  requireWrite(ctx);
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  if (!domain.verified) throw conflict("Verify the domain's ownership record before checking it.", "domain_not_verified");
  // A check already queued or running is returned as is (202, same id) instead of queueing another.
  // Recorded only when this request reserved a new check (the guard reads the id it set), not for a repeat.
  const { checkId, created } = await reserveCheck(svc, domain.id, svc.clock.now(), (fresh) => [
    auditWhen(
      svc,
      ctx,
      { verb: "domain.check", target: { type: "domain", id: domain.id }, summary: `check of ${domain.name} requested (${fresh})` },
      { when: sql`EXISTS (SELECT 1 FROM domains WHERE id = ${domain.id} AND pending_check_id = ${fresh})` },
    ),
  ]);
  if (created) await enqueueChecks(svc, [{ domain_id: domain.id, check_id: checkId, trigger: "manual" }]);
  return { check_id: checkId, status: "queued" };
}
