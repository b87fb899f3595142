// The daily re-validation of hosted mark certificates (cron): each certificate is checked again at
// today's date against its hosted logo, its report and end date stored, and its alerts raised or resolved
// (mark-alerts.ts). Scheduled work, not a team's action: no audit entry. Does I/O (D1).
import { and, eq, isNotNull } from "drizzle-orm";
import { domains, hostedBimi } from "../../db/schema";
import type { Services } from "../../services";
import { commitAll } from "../commit";
import { EXPIRY_WARNING_MS, markAlertStatements } from "./mark-alerts";
import type { StoredValidation } from "./validation";
import { revalidated } from "./write";

export interface RevalidationSummary {
  checked: number;
  invalid: number;
  expiring: number;
  failed: number;
}

export async function revalidateHostedMarks(svc: Services): Promise<RevalidationSummary> {
  const now = svc.clock.now();
  const rows = await svc.db
    .select({ row: hostedBimi, domain: { id: domains.id, name: domains.name } })
    .from(hostedBimi)
    .innerJoin(domains, and(eq(domains.id, hostedBimi.domainId), eq(domains.teamId, hostedBimi.teamId)))
    .where(isNotNull(hostedBimi.certificatePem));
  const summary: RevalidationSummary = { checked: 0, invalid: 0, expiring: 0, failed: 0 };
  // One at a time: a few hundred certificates a day, each a batch of its own so one failure stops nothing.
  for (const { row, domain } of rows) {
    try {
      const previous = row.validation ? (JSON.parse(row.validation) as StoredValidation).logo : null;
      const validation = await revalidated(domain.name, row.selector, row, previous, now);
      const cert = validation.certificate;
      const alerts = await markAlertStatements(svc, { teamId: row.teamId, domain, selector: row.selector, certificate: cert }, now);
      await commitAll(
        svc,
        [
          svc.db
            .update(hostedBimi)
            .set({
              markKind: cert?.kind ?? null,
              certificateNotAfter: cert?.not_after ? new Date(cert.not_after) : null,
              validation: JSON.stringify(validation),
              validatedAt: now,
              updatedAt: now,
            })
            .where(eq(hostedBimi.id, row.id)),
          ...alerts.statements,
        ],
        alerts.eventIds,
      );
      summary.checked++;
      if (cert && (!cert.valid || cert.logo_matches === false)) summary.invalid++;
      if (cert?.not_after && new Date(cert.not_after).getTime() - now.getTime() <= EXPIRY_WARNING_MS) summary.expiring++;
    } catch (e) {
      summary.failed++;
      console.error(JSON.stringify({ level: "error", job: "bimi-revalidate", hostedBimiId: row.id, error: String(e) }));
    }
  }
  return summary;
}
