// The one write path of a hosted BIMI row: insert or update it with its new validation report, the
// mark-certificate alerts and the audit entry, in one batch (docs/architecture.md "Writes"). Does I/O (D1).
import { and, eq, sql } from "drizzle-orm";
import { hostedBimi } from "../../db/schema";
import type { Services } from "../../services";
// audit(): the audit entry statement at the service clock; auditWhen(): one written on a condition (D238).
import { audit, auditWhen } from "../audit-when";
import { commitAll, type Statement } from "../commit";
import type { ServiceContext } from "../context";
import type { DomainRow } from "../domains/get-domain";
import { markAlertStatements } from "./mark-alerts";
import { assertNameFree, type HostedBimiRow, isUniqueViolation, nameTaken } from "./row";
import { type StoredValidation, validateCertificate } from "./validation";

export type HostedPatch = Partial<
  Pick<HostedBimiRow, "logoSvg" | "logoSha256" | "logoUploadedAt" | "certificatePem" | "certificateUrl" | "certificateUploadedAt">
>;

/** The logo findings and a fresh certificate report for the row as it will be after `patch`. */
export async function revalidated(
  domain: string,
  selector: string,
  next: Pick<HostedBimiRow, "logoSvg" | "certificatePem">,
  logoFindings: StoredValidation["logo"],
  now: Date,
): Promise<StoredValidation> {
  const certificate = next.certificatePem === null ? null : await validateCertificate(next.certificatePem, { domain, selector, logoSvg: next.logoSvg, now });
  return { logo: logoFindings, certificate };
}

export async function writeHosted(
  svc: Services,
  ctx: ServiceContext,
  domain: DomainRow,
  selector: string,
  existing: HostedBimiRow | undefined,
  patch: HostedPatch,
  logoFindings: StoredValidation["logo"],
  entry: { verb: string; summary: string },
): Promise<void> {
  const now = svc.clock.now();
  const next = {
    logoSvg: patch.logoSvg !== undefined ? patch.logoSvg : (existing?.logoSvg ?? null),
    certificatePem: patch.certificatePem !== undefined ? patch.certificatePem : (existing?.certificatePem ?? null),
  };
  const previousLogo = existing?.validation ? (JSON.parse(existing.validation) as StoredValidation).logo : null;
  const validation = await revalidated(domain.name, selector, next, logoFindings ?? previousLogo, now);
  const cert = validation.certificate;
  const derived = {
    markKind: cert?.kind ?? null,
    certificateNotAfter: cert?.not_after ? new Date(cert.not_after) : null,
    validation: JSON.stringify(validation),
    validatedAt: now,
    updatedAt: now,
  };
  let write: Statement;
  if (existing) {
    write = svc.db
      .update(hostedBimi)
      .set({ ...patch, ...derived })
      .where(and(eq(hostedBimi.id, existing.id), eq(hostedBimi.teamId, ctx.teamId)));
  } else {
    await assertNameFree(svc, domain, selector);
    write = svc.db
      .insert(hostedBimi)
      .values({ domainId: domain.id, teamId: ctx.teamId, domainName: domain.name, selector, ...patch, ...derived, createdAt: now });
  }
  const alerts = await markAlertStatements(svc, { teamId: ctx.teamId, domain: { id: domain.id, name: domain.name }, selector, certificate: cert }, now);
  const input = { verb: entry.verb, target: { type: "domain", id: domain.id }, summary: entry.summary };
  // An update of a row a concurrent delete removed changes nothing, so it records nothing (D238): the guarded
  // entry goes before the update. An insert that loses its race fails the whole batch (unique index).
  const auditEntry = existing
    ? auditWhen(svc, ctx, input, { when: sql`EXISTS (SELECT 1 FROM hosted_bimi WHERE id = ${existing.id} AND team_id = ${ctx.teamId})` })
    : audit(svc, ctx, input);
  try {
    await commitAll(svc, existing ? [auditEntry, write, ...alerts.statements] : [write, ...alerts.statements, auditEntry], alerts.eventIds);
  } catch (e) {
    if (isUniqueViolation(e)) throw nameTaken(domain.name, selector);
    throw e;
  }
}
