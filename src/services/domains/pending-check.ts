// The check a domain is waiting on (queued by a request, a verification or the cron), if its lease still
// holds: the dashboard shows it and refreshes until the result is recorded. Does I/O (D1).
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "./get-domain";
import { CHECK_LEASE_MS } from "./schedule";

export interface PendingCheck {
  check_id: string;
  queued_at: string | null;
}

export async function pendingCheckOf(svc: Services, ctx: ServiceContext, domainId: number): Promise<PendingCheck | null> {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  if (!domain.pendingCheckId) return null;
  // A reservation past its lease is superseded (docs/decisions.md D8): nothing is running for it any more.
  const at = domain.pendingCheckAt?.getTime() ?? 0;
  if (at <= svc.clock.now().getTime() - CHECK_LEASE_MS) return null;
  return { check_id: domain.pendingCheckId, queued_at: iso(domain.pendingCheckAt) };
}
