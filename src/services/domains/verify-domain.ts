// Looks up the ownership TXT record now; on a match marks the domain verified, emits domain.verified and queues the first check. Does I/O (DNS, D1, queue).
import { and, eq, sql } from "drizzle-orm";
import { domains } from "../../db/schema";
import { dependencyUnavailable } from "../../lib/errors";
import type { Services } from "../../services";
import { buildConditionalEvent } from "../alerts/conditional-event";
import { CHECK_LEASE_MS, enqueueChecks, newCheckId } from "./schedule";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import { type DomainRow, getDomainInTeam } from "./get-domain";
import { domainRef, verificationRecord } from "./views";
import { type ServiceContext, requireWrite } from "../context";

export interface VerifyOutcome {
  verified: boolean;
  domain: DomainRow;
  checked_at: string;
  /** Whether any TXT record exists at the ownership host (null when the domain was already verified). */
  record_found: boolean | null;
  reason: string;
}

export async function verifyDomain(svc: Services, ctx: ServiceContext, domainId: number): Promise<VerifyOutcome> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const now = svc.clock.now();
  if (domain.verified) return { verified: true, domain, checked_at: now.toISOString(), record_found: null, reason: "already verified" };

  const expected = verificationRecord(domain);
  const answer = await svc.createResolver().query(expected.host, "TXT");
  // A temperror is "unknown", never "not found" (RFC 7208 §4.4 applies the same rule to SPF).
  if (answer.kind === "temperror") throw dependencyUnavailable();
  const texts = answer.kind === "records" ? answer.records.map((t) => t.trim()) : [];
  if (!texts.includes(expected.value)) {
    const reason = texts.length === 0 ? `no TXT record at ${expected.host}` : `TXT record at ${expected.host} does not contain ${expected.value}`;
    return { verified: false, domain, checked_at: now.toISOString(), record_found: texts.length > 0, reason };
  }

  // next_check_at is leased (not "now"): the first check is queued right here, so the cron tick must not queue a second one.
  const checkId = newCheckId();
  const event = buildConditionalEvent(
    svc.db,
    {
      type: "domain.verified",
      teamId,
      domain: domainRef(domain),
      data: { verified_at: now.toISOString(), check_id: checkId },
    },
    now,
    { where: sql`EXISTS (SELECT 1 FROM domains WHERE id = ${domain.id} AND verified = 0)` },
  );
  // Both guarded like the update below: of two concurrent verifies only the one that changes the row is recorded.
  const entry = auditWhen(
    svc,
    ctx,
    { verb: "domain.verify", target: { type: "domain", id: domain.id }, summary: `ownership of ${domain.name} verified (TXT at ${expected.host})` },
    { when: sql`EXISTS (SELECT 1 FROM domains WHERE id = ${domain.id} AND verified = 0)` },
  );
  const [, , updated] = await commit(
    svc,
    [
      event.statement,
      entry,
      svc.db
        .update(domains)
        .set({
          verified: true,
          verifiedAt: now,
          nextCheckAt: new Date(now.getTime() + CHECK_LEASE_MS),
          pendingCheckId: checkId,
          pendingCheckAt: now,
          ownershipCheckedAt: now,
          ownershipMissingSince: null,
        })
        .where(and(eq(domains.id, domain.id), eq(domains.teamId, teamId), eq(domains.verified, false)))
        .returning(),
    ],
    ([, , rows]) => (rows.length > 0 ? [event.id] : []),
  );
  const row = updated[0];
  if (row) {
    // A lost enqueue is not fatal: the lease on next_check_at expires and the cron tick schedules the check.
    await enqueueChecks(svc, [{ domain_id: domain.id, check_id: checkId, trigger: "verify" }]).catch((e: unknown) =>
      console.warn(JSON.stringify({ level: "warn", msg: "first check enqueue failed", domain_id: domain.id, error: String(e) })),
    );
  }
  return { verified: true, domain: row ?? { ...domain, verified: true }, checked_at: now.toISOString(), record_found: true, reason: "ownership record found" };
}
