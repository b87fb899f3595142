// DELETE /domains/{domain}/dkim/selectors/{selector}: only a manual or learned (DMARC) selector that is not published
// (pending, missing, or invalid without a record, e.g. a dangling CNAME) may be removed; a published
// one (active, revoked, or invalid with a record in DNS) and discovered ones are a 409. I/O: D1.
import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { dkimKeys, dkimSelectors } from "../../db/schema";
import { conflict, notFound } from "../../lib/errors";
import type { Services } from "../../services";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import { getDomainInTeam } from "../domains/get-domain";
import { findSelector } from "./queries";
import { type ServiceContext, requireWrite } from "../context";

/** Not published: nothing answers at the selector, so removing it from the inventory hides nothing. */
const unpublished = or(inArray(dkimSelectors.status, ["pending", "missing"]), and(eq(dkimSelectors.status, "invalid"), isNull(dkimSelectors.record)));

export async function deleteDkimSelector(svc: Services, ctx: ServiceContext, domainId: number, selector: string): Promise<void> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const row = await findSelector(svc.db, domain.id, selector);
  if (!row) throw notFound("Selector");
  if (row.source === "discovered")
    throw conflict(`Selector ${row.selector} was discovered in DNS; only selectors added by hand or learned from DMARC reports can be removed.`);
  const isUnpublished = row.status === "pending" || row.status === "missing" || (row.status === "invalid" && row.record === null);
  if (!isUnpublished) throw conflict(`Selector ${row.selector} is published (${row.status}); remove its DNS record first.`);
  // Guarded delete: a check that published it in the meantime wins.
  const removable = and(eq(dkimSelectors.id, row.id), inArray(dkimSelectors.source, ["manual", "dmarc"]), unpublished);
  await commit(svc, [
    // Before the deletes, on the same guard: a selector published in the meantime is kept and nothing is recorded.
    auditWhen(
      svc,
      ctx,
      {
        verb: "dkim_selector.delete",
        target: { type: "dkim_selector", id: `${row.selector}._domainkey.${domain.name}` },
        summary: `selector ${row.selector} (${row.source}, ${row.status}) removed from ${domain.name}`,
      },
      { when: sql`EXISTS (SELECT 1 FROM dkim_selectors WHERE ${removable})` },
    ),
    svc.db.delete(dkimKeys).where(inArray(dkimKeys.selectorId, svc.db.select({ id: dkimSelectors.id }).from(dkimSelectors).where(removable))),
    svc.db.delete(dkimSelectors).where(removable),
  ]);
}
