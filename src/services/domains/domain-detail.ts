// The single-domain view: Domain fields, ownership record, DMARC report address and the latest check's posture. Does I/O (D1).
import { eq } from "drizzle-orm";
import { checks } from "../../db/schema";
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import type { StoredPosture } from "../../core/posture/stored";
import { getDomainInTeam } from "./get-domain";
import { domainView, reportAddress, verificationRecord } from "./views";
import type { ServiceContext } from "../context";

export async function getDomainDetail(svc: Services, ctx: ServiceContext, domainId: number) {
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const last = domain.lastCheckId ? await svc.db.select().from(checks).where(eq(checks.id, domain.lastCheckId)).get() : undefined;
  const stored = (last?.posture ?? null) as StoredPosture | null;
  return {
    ...domainView(domain),
    verification: verificationRecord(domain),
    dmarc_report_address: reportAddress(domain, svc.config),
    posture:
      last && stored
        ? {
            check_id: last.id,
            checked_at: iso(last.createdAt),
            stale_parts: last.staleParts ?? [],
            records: stored.records,
            blacklists: stored.blacklists,
            findings: stored.findings,
          }
        : null,
    recommendations: stored?.recommendations ?? [],
    fixes: stored?.fixes ?? [],
  };
}
export type DomainDetail = Awaited<ReturnType<typeof getDomainDetail>>;
