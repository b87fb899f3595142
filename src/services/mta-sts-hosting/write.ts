// The one write of a hosted policy: the row (new id, RFC 8461 §3.1) and its audit entry in one D1 batch,
// then Cloudflare brought in line (sync.ts). Shared by enable/update, enforce and retire. Does I/O.
import { and, eq, ne, sql } from "drizzle-orm";
import { newPolicyId } from "../../core/mta-sts/hosting";
import { hostedMtaSts } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { Services } from "../../services";
import { audit as auditEntry, auditWhen } from "../audit-when";
import { commit } from "../commit";
import type { ServiceContext } from "../context";
import type { DomainRow } from "../domains/get-domain";
import { changedMeanwhile, enabledMeanwhile, nameTaken } from "./errors";
import type { HostedRow } from "./rows";
import { syncExternal } from "./sync";

export type RowValues = Omit<
  typeof hostedMtaSts.$inferInsert,
  "domainId" | "teamId" | "domainName" | "policyId" | "policyChangedAt" | "createdAt" | "updatedAt"
>;

export interface PolicyWrite {
  verb: "mta_sts_hosting.enable" | "mta_sts_hosting.update" | "mta_sts_hosting.enforce" | "mta_sts_hosting.disable";
  summary: string;
  /** False: only settings that are not part of the policy changed (the id stays). */
  newId: boolean;
}

const randomBytes = () => crypto.getRandomValues(new Uint8Array(6));

/** One team hosts a name (the unique index would refuse the insert anyway; this gives the 409 its words). */
async function assertNameFree(svc: Services, domain: DomainRow): Promise<void> {
  const other = await svc.db
    .select({ id: hostedMtaSts.domainId })
    .from(hostedMtaSts)
    .where(and(eq(hostedMtaSts.domainName, domain.name), ne(hostedMtaSts.domainId, domain.id)))
    .get();
  if (other) throw nameTaken(domain.name);
}

export async function writePolicy(
  svc: Services,
  ctx: ServiceContext,
  domain: DomainRow,
  existing: HostedRow | undefined,
  values: RowValues,
  w: PolicyWrite,
): Promise<HostedRow> {
  const now = svc.clock.now();
  const policyId = w.newId || !existing ? newPolicyId(now, randomBytes(), existing?.policyId ?? null) : existing.policyId;
  const policyChangedAt = w.newId || !existing ? now : existing.policyChangedAt;
  // The row as the caller read it: a request that changed it since (a new id, or any write) wins, and
  // this one is refused rather than overwriting it with values computed from the old row (an enforce
  // click must not drop the patterns a concurrent PUT added, nor a DELETE miss a larger max_age).
  const unchanged = existing
    ? and(
        eq(hostedMtaSts.domainId, domain.id),
        eq(hostedMtaSts.teamId, ctx.teamId),
        eq(hostedMtaSts.policyId, existing.policyId),
        eq(hostedMtaSts.updatedAt, existing.updatedAt),
      )
    : undefined;
  // The audit entry (docs/audit.md) joins the same batch as the change, and only when the change happens.
  const input = { verb: w.verb, target: { type: "domain" as const, id: domain.id }, summary: `${domain.name}: ${w.summary}` };
  const audit = unchanged ? auditWhen(svc, ctx, input, { when: sql`EXISTS (SELECT 1 FROM ${hostedMtaSts} WHERE ${unchanged})` }) : auditEntry(svc, ctx, input);
  if (!existing) await assertNameFree(svc, domain);
  const row = { ...values, policyId, policyChangedAt, updatedAt: now };
  let stored: HostedRow | undefined;
  try {
    const [, written] = await commit(svc, [
      audit,
      unchanged
        ? svc.db.update(hostedMtaSts).set(row).where(unchanged).returning()
        : svc.db
            .insert(hostedMtaSts)
            .values({ ...row, domainId: domain.id, teamId: ctx.teamId, domainName: domain.name, createdAt: now })
            .returning(),
    ]);
    stored = written[0];
  } catch (e) {
    // Two enables at once: the unique name index (another team's domain of that name) or the primary key
    // (this domain, turned on by a concurrent request of this team) refuses the second.
    const why = String((e as { cause?: unknown })?.cause ?? e);
    if (!existing && /UNIQUE constraint failed/i.test(why)) {
      const mine = await svc.db.select({ id: hostedMtaSts.domainId }).from(hostedMtaSts).where(eq(hostedMtaSts.domainId, domain.id)).get();
      throw mine ? enabledMeanwhile(domain.name) : nameTaken(domain.name);
    }
    // The domain was deleted after it was read (its deletion is refused only once hosting exists).
    if (!existing && /FOREIGN KEY constraint failed/i.test(why)) throw notFound("Domain");
    throw e;
  }
  if (!stored) throw changedMeanwhile(domain.name);
  return syncExternal(svc, stored, !existing);
}
