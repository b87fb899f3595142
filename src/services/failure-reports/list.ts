// A domain's DMARC failure samples, newest received first, optionally between two UTC days within the
// 30-day retention (docs/decisions.md D106). Scoped by team: another team's domain is a 404. Does I/O (D1, the domain's report object).
import { type FieldErrors, validationFailed } from "../../lib/errors";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { FAILURE_RETENTION_MS } from "../../durable-objects/domain-store/failures";
import { countFailures, type FailureRow, listFailures, type ReceivedRange } from "./store";

export interface FailureQuery extends PaginationQuery {
  /** First UTC day (YYYY-MM-DD), inclusive. */
  from?: string;
  /** Last UTC day (YYYY-MM-DD), inclusive. */
  to?: string;
}

const dayStr = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function dayMs(text: string): number | null {
  const ms = Date.parse(`${text}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(ms) && dayStr(ms) === text ? ms : null;
}

/** `to` not after today nor before `from`; `from` not before the oldest day still kept (else "none" would be a lie): 422. */
function rangeOf(nowMs: number, q: FailureQuery): ReceivedRange {
  const todayMs = dayMs(dayStr(nowMs)) ?? nowMs;
  const oldest = todayMs - FAILURE_RETENTION_MS;
  const errors: FieldErrors = {};
  const fromMs = q.from === undefined ? undefined : dayMs(q.from);
  const toMs = q.to === undefined ? undefined : dayMs(q.to);
  if (fromMs === null) errors.from = ["must be a date, YYYY-MM-DD"];
  else if (fromMs !== undefined && fromMs < oldest)
    errors.from = [`must not be before ${dayStr(oldest)}: failure samples are kept ${FAILURE_RETENTION_MS / DAY_MS} days`];
  if (toMs === null) errors.to = ["must be a date, YYYY-MM-DD"];
  else if (toMs !== undefined && toMs > todayMs) errors.to = [`must not be after today (${dayStr(todayMs)})`];
  else if (toMs !== undefined && fromMs !== undefined && fromMs !== null && toMs < fromMs) errors.to = ["must not be before from"];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { fromMs: fromMs ?? undefined, toMs: toMs === undefined || toMs === null ? undefined : toMs + DAY_MS };
}

export interface FailureView {
  id: number;
  received_at: string;
  reporting_org: string | null;
  arrival_date: string | null;
  source_ip: string | null;
  auth_failure: string | null;
  auth_results: string | null;
  identity_alignment: string | null;
  dkim_domain: string | null;
  dkim_selector: string | null;
  delivery_result: string | null;
}

const view = (r: FailureRow): FailureView => ({
  id: r.id,
  received_at: new Date(r.receivedAt).toISOString(),
  reporting_org: r.reportingOrg,
  arrival_date: r.arrivalDate === null ? null : new Date(r.arrivalDate).toISOString(),
  source_ip: r.sourceIp,
  auth_failure: r.authFailure,
  auth_results: r.authResults,
  identity_alignment: r.identityAlignment,
  dkim_domain: r.dkimDomain,
  dkim_selector: r.dkimSelector,
  delivery_result: r.deliveryResult,
});

export async function listFailureSamples(svc: Services, ctx: ServiceContext, domainId: number, q: FailureQuery) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const range = rangeOf(svc.clock.now().getTime(), q);
  const [rows, total] = await Promise.all([
    listFailures(svc, domain.id, range, { limit: q.per_page, offset: pageOffset(q) }),
    countFailures(svc, domain.id, range),
  ]);
  // The report address is where the `ruf` tag sends failure reports (the same as `rua`, docs/decisions.md D108).
  return { items: rows.map(view), total, domain: { id: domain.id, name: domain.name }, report_address: `${domain.reportToken}@${svc.config.reportDomain}` };
}
