// The one TLS report ingestion verb (RFC 8460 §3), shared by the HTTPS intake and Email Routing:
// resolve the domain from its report token, admit (verified, daily quota, dates), parse strictly, store.
// Does I/O (D1, the domain's report object, queue).
import { eq } from "drizzle-orm";
import { parseTlsReport, type TlsReportError } from "../../core/tls-rpt/report";
import { domains } from "../../db/schema";
import { ApiError, payloadTooLarge } from "../../lib/errors";
import { MAX_REPORT_RANGE_DAYS, REPORT_LIMITS } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { domainForRecipient, refused } from "../dmarc/ingest";
import { planOf } from "../dmarc/quota";
import { domainStore } from "../domains/domain-store";
import { storeTlsReport, type TlsStoreTarget } from "./store";

export interface TlsIngestInput {
  body: Uint8Array;
  /** HTTPS: the token of the URL (the domain's report token, docs/decisions.md D100). */
  token?: string;
  /** Email: the envelope recipient `<report_token>@<REPORT_DOMAIN>`. */
  recipient?: string;
}

export interface TlsIngestResult {
  report_id: string;
  organization: string;
  domain: string;
  policies: number;
  successful: number;
  failed: number;
  duplicate: boolean;
}

const TOKEN = /^[a-z0-9]{8,128}$/;

async function targetOf(svc: Services, input: TlsIngestInput): Promise<(TlsStoreTarget & { verified: boolean }) | null> {
  if (input.recipient !== undefined) return domainForRecipient(svc, input.recipient);
  const token = input.token?.toLowerCase() ?? "";
  if (!TOKEN.test(token)) return null;
  return (
    (await svc.db.query.domains.findFirst({ where: eq(domains.reportToken, token), columns: { id: true, teamId: true, name: true, verified: true } })) ?? null
  );
}

function reportError(e: TlsReportError): ApiError {
  if (e.code === "too_large") return payloadTooLarge(`The report is too large: ${e.message}.`);
  return refused(e.code, `The TLS report was refused (${e.code}): ${e.message}.`);
}

const within = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);
const startOfDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

export async function ingestTlsReport(svc: Services, input: TlsIngestInput, via: "https" | "email"): Promise<TlsIngestResult> {
  const now = svc.clock.now();
  const t = await targetOf(svc, input);
  // An unknown token is a 404 over HTTPS (nothing to say about which tokens exist); unknown mail recipients are refused by the caller first.
  if (t === null) throw new ApiError(404, "not_found", "No domain takes TLS reports at this address.");
  if (!t.verified) throw refused("domain_not_verified", "This report address belongs to a domain whose ownership is not verified.");
  const limits = REPORT_LIMITS[await planOf(svc, t.id)];
  // The daily report count of the DMARC address applies to TLS reports too, counted apart (docs/limits.md).
  const today = await domainStore(svc, t).tlsIntake(startOfDay(now).getTime());
  if (today >= limits.reports_per_day) {
    const retry = Math.max(1, Math.ceil((startOfDay(now).getTime() + DAY_MS - now.getTime()) / 1000));
    throw new ApiError(429, "quota_exceeded", `This domain accepts ${limits.reports_per_day} TLS reports a day on its plan; retry tomorrow.`, undefined, {
      "Retry-After": String(retry),
    });
  }
  const parsed = parseTlsReport(input.body);
  if (!parsed.ok) throw reportError(parsed.error);
  const r = parsed.value;
  for (const p of r.policies) {
    if (!within(p.policyDomain, t.name)) throw refused("domain_mismatch", `The report has a policy for ${p.policyDomain.slice(0, 253)}, not ${t.name}.`);
  }
  // RFC 8460 §4.1: reports cover a day; the DMARC date rules (D17) apply.
  if (r.end.getTime() - r.begin.getTime() > MAX_REPORT_RANGE_DAYS * DAY_MS) {
    throw refused("date_range_too_long", `The report's date range spans more than ${MAX_REPORT_RANGE_DAYS} days.`);
  }
  if (r.begin.getTime() > now.getTime() + 3_600_000) throw refused("report_in_future", "The report's date range starts in the future.");
  if (r.end.getTime() < now.getTime() - limits.retention_days * DAY_MS) {
    throw refused("beyond_retention", `The report ends more than ${limits.retention_days} days ago, beyond the plan's retention.`);
  }
  const out = await storeTlsReport(svc, { id: t.id, teamId: t.teamId, name: t.name }, r, via);
  return {
    report_id: r.reportId,
    organization: r.orgName,
    domain: t.name,
    policies: r.policies.length,
    successful: r.successful,
    failed: r.failed,
    duplicate: out.duplicate,
  };
}
