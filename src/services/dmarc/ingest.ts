// The one ingestion verb shared by HTTP and Email Routing: resolve the domain(s), parse the report
// (streaming, capped), store it in each. Does I/O (D1, queue).
import { and, eq } from "drizzle-orm";
import { normalizeDomainName } from "../../core/dns/names";
import { parseReport, type ParsedReport, type ReportError } from "../../core/reports";
import { domains } from "../../db/schema";
import { type ApiError, payloadTooLarge } from "../../lib/errors";
import type { Plan } from "../../lib/plans";
import type { Services } from "../../services";
import { storeReport, type StoreTarget } from "./store";

export interface IngestInput {
  /** The report: raw XML, gzip or zip (detected by magic bytes). */
  body: Uint8Array | ReadableStream<Uint8Array>;
  /** Envelope recipient `<report_token>@<REPORT_DOMAIN>`, when known. */
  recipient: string | null;
}

export interface IngestResult {
  report_id: string;
  domain: string;
  records: number;
  duplicate: boolean;
}

import { refused } from "./ingest-errors";
import { admitParsedReport, admitReportCount, planOf } from "./quota";

export { refused };

/** The domain whose report address is `address`, or null (wrong report domain, unknown token). */
export async function domainForRecipient(svc: Services, address: string): Promise<(StoreTarget & { verified: boolean }) | null> {
  const a = address.trim().replace(/^<|>$/g, "");
  const at = a.lastIndexOf("@");
  // Report tokens are stored in lower case (create-domain), so the whole address is compared case-insensitively.
  if (
    at <= 0 ||
    a
      .slice(at + 1)
      .toLowerCase()
      .replace(/\.$/, "") !== svc.config.reportDomain.toLowerCase()
  )
    return null;
  const token = a.slice(0, at).toLowerCase();
  if (token.length > 128) return null;
  const row = await svc.db.query.domains.findFirst({ where: eq(domains.reportToken, token), columns: { id: true, teamId: true, name: true, verified: true } });
  return row ?? null;
}

function reportError(e: ReportError): ApiError {
  if (e.code === "too_large") return payloadTooLarge(`The report is too large: ${e.message}.`);
  return refused(e.code, `The report was refused (${e.code}): ${e.message}.`);
}

const within = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);

/**
 * Domain resolution (docs/decisions.md D16): a recipient names exactly one
 * domain, and the report must be about that domain or one of its subdomains. Without a recipient
 * the report goes to every VERIFIED domain named exactly like policy_published/domain: several
 * teams may monitor the same domain, and each one proved ownership, so each gets its own copy
 * (each deduplicated on its own). Unverified names never receive recipient-less reports.
 */
export async function ingestReport(svc: Services, input: IngestInput): Promise<IngestResult> {
  const now = svc.clock.now();
  let targets: StoreTarget[] = [];
  // Each target's plan, read once per report (D1 reads are the control plane's budget: docs/capacity.md).
  const plans = new Map<number, Plan>();
  if (input.recipient !== null) {
    const t = await domainForRecipient(svc, input.recipient);
    if (t === null) throw refused("unknown_recipient", "The recipient is not a report address of any domain.");
    // A pending domain (never verified, or ownership lost) takes no reports: its address may be a former owner's.
    if (!t.verified) throw refused("domain_not_verified", "This report address belongs to a domain whose ownership is not verified.");
    // Over the day's report count: refused before the body is parsed.
    const plan = await planOf(svc, t.id);
    plans.set(t.id, plan);
    await admitReportCount(svc, t.id, plan, now);
    targets = [{ id: t.id, teamId: t.teamId, name: t.name }];
  }
  const result = await parseReport(input.body);
  if (!result.ok) throw reportError(result.error);
  const parsed: ParsedReport = result.value;
  // An internationalized policy domain is compared as its A-label (RFC 5890), as domains are stored.
  const named = normalizeDomainName(parsed.policy.domain);
  if (!named.ok) throw refused("invalid_policy_domain", `policy_published/domain is not a domain name: ${named.error.slice(0, 200)}.`);
  const policyDomain = named.value;
  if (input.recipient !== null) {
    const t = targets[0];
    if (t && !within(policyDomain, t.name)) {
      throw refused("domain_mismatch", `The report is about ${policyDomain.slice(0, 253)}, not ${t.name}.`);
    }
  } else {
    targets = await svc.db
      .select({ id: domains.id, teamId: domains.teamId, name: domains.name })
      .from(domains)
      .where(and(eq(domains.name, policyDomain), eq(domains.verified, true)));
    if (targets.length === 0) throw refused("unknown_domain", `No verified domain named ${policyDomain.slice(0, 253)} is monitored.`);
  }
  // Every limit is checked for every target before anything is stored, so a refusal writes nothing.
  for (const t of targets) {
    const plan = plans.get(t.id) ?? (await planOf(svc, t.id));
    if (input.recipient === null) await admitReportCount(svc, t.id, plan, now);
    await admitParsedReport(svc, t.id, plan, parsed, now);
  }
  let duplicate = true;
  for (const t of targets) {
    const out = await storeReport(svc, t, parsed);
    if (!out.duplicate) duplicate = false;
  }
  if (parsed.warnings.length > 0) {
    console.warn(
      JSON.stringify({
        level: "warn",
        msg: "dmarc report warnings",
        org: parsed.metadata.orgName,
        report_id: parsed.metadata.reportId,
        warnings: parsed.warnings,
      }),
    );
  }
  return { report_id: parsed.metadata.reportId, domain: targets[0]?.name ?? policyDomain, records: parsed.totals.records, duplicate };
}
