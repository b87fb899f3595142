// Stop hosting a domain's BIMI logo and certificate for one selector: the row goes, the served URLs
// answer 404, and the certificate alerts resolve, with the audit entry, in one batch. Does I/O (D1).
import { and, eq, sql } from "drizzle-orm";
import { hostedBimi } from "../../db/schema";
import type { Services } from "../../services";
// auditWhen(): the audit entry, written only if the row is still there (D238).
import { auditWhen } from "../audit-when";
import { commitAll } from "../commit";
import { type ServiceContext, requireWrite } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { markAlertStatements } from "./mark-alerts";
import { normalizeSelector, requireHosted } from "./row";

export async function deleteBimiHosting(svc: Services, ctx: ServiceContext, domainId: number, input: { selector?: string | null }): Promise<void> {
  requireWrite(ctx);
  const selector = normalizeSelector(input.selector);
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const row = await requireHosted(svc, ctx.teamId, domain.id, selector);
  const now = svc.clock.now();
  const alerts = await markAlertStatements(svc, { teamId: ctx.teamId, domain: { id: domain.id, name: domain.name }, selector, certificate: null }, now);
  await commitAll(
    svc,
    [
      // Before the delete, on its condition: a delete that lost the race to another records nothing (D238).
      auditWhen(
        svc,
        ctx,
        { verb: "bimi_hosting.delete", target: { type: "domain", id: domain.id }, summary: `selector=${selector}` },
        { when: sql`EXISTS (SELECT 1 FROM hosted_bimi WHERE id = ${row.id} AND team_id = ${ctx.teamId})` },
      ),
      svc.db.delete(hostedBimi).where(and(eq(hostedBimi.id, row.id), eq(hostedBimi.teamId, ctx.teamId))),
      ...alerts.statements,
    ],
    alerts.eventIds,
  );
}
