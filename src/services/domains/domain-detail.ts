// The single-domain view: Domain fields, ownership record, DMARC report address and the latest check's
// posture, read from D1 while the check is still in its outbox there, else from the domain's object
// (docs/decisions.md D135). Does I/O (D1, the domain's object).
import { eq } from "drizzle-orm";
import { checks } from "../../db/schema";
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import { parsePosture, type StoredPosture } from "../../core/posture/stored";
import { domainStore } from "./domain-store";
import { getDomainInTeam } from "./get-domain";
import { domainView, reportAddress, verificationRecord } from "./views";
import type { ServiceContext } from "../context";

export async function getDomainDetail(svc: Services, ctx: ServiceContext, domainId: number) {
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const last = domain.lastCheckId ? await latestCheck(svc, domain, domain.lastCheckId) : null;
  const stored: StoredPosture | null = last?.posture ?? null;
  return {
    ...domainView(domain),
    verification: verificationRecord(domain),
    dmarc_report_address: reportAddress(domain, svc.config),
    posture:
      last && stored
        ? {
            check_id: last.id,
            checked_at: iso(new Date(last.createdAt)),
            stale_parts: last.staleParts ?? [],
            records: stored.records,
            blacklists: stored.blacklists,
            findings: stored.findings,
          }
        : null,
    plan: stored?.plan ?? null,
    recommendations: stored?.recommendations ?? [],
    fixes: stored?.fixes ?? [],
  };
}

/** The latest check's stored posture of a domain already loaded within its team; null before the first. */
export async function latestPosture(svc: Services, domain: { id: number; lastCheckId: string | null }): Promise<StoredPosture | null> {
  if (!domain.lastCheckId) return null;
  return (await latestCheck(svc, domain, domain.lastCheckId))?.posture ?? null;
}
export type DomainDetail = Awaited<ReturnType<typeof getDomainDetail>>;

/** The check's own row: D1 holds its posture until the copy to the object, the object after. */
async function latestCheck(svc: Services, domain: { id: number }, id: string) {
  const row = await svc.db.select().from(checks).where(eq(checks.id, id)).get();
  if (row && row.archivedAt === null) return { ...row, createdAt: row.createdAt.getTime(), posture: (row.posture ?? null) as StoredPosture | null };
  const kept = await domainStore(svc, domain).getCheck(id);
  return kept ? { ...kept, posture: parsePosture(kept.posture) } : null;
}
