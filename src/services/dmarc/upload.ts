// A report uploaded in the dashboard: the same ingestion verb as HTTP and email, addressed to the
// domain's own report address, so the domain binding, quotas and refusals are the same (docs/decisions.md
// D16, D17). Does I/O (D1, queue).
import { getDomainInTeam } from "../domains/get-domain";
import type { Services } from "../../services";
import { type ServiceContext, requireWrite } from "../context";
import { type IngestResult, ingestReport } from "./ingest";

/** docs/decisions.md D17: a report of at most 10 MB, whichever face it arrives by. */
export const UPLOAD_MAX_REPORT_BYTES = 10 * 1024 * 1024;

export async function uploadReport(svc: Services, ctx: ServiceContext, domainId: number, bytes: Uint8Array): Promise<IngestResult> {
  requireWrite(ctx);
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  return ingestReport(svc, { body: bytes, recipient: `${domain.reportToken}@${svc.config.reportDomain}` });
}
