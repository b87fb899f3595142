// The failure report ingestion verb (RFC 9991 failure reports in the ARF of RFC 6591), called by Email
// Routing for mail to a domain's report address: resolve the domain from the address, admit (verified,
// the daily report count of the address), read the feedback part, check whom it is about, store the
// sample. Nothing of the original message is stored (docs/decisions.md D106, D107). Does I/O (D1).
import type { Email } from "postal-mime";
import { readFailureReport } from "../../core/arf/report";
import { ApiError } from "../../lib/errors";
import { REPORT_LIMITS } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { domainForRecipient } from "../dmarc/ingest";
import { refused } from "../dmarc/ingest-errors";
import { planOf } from "../dmarc/quota";
import { countFailures, insertFailure } from "./store";

export interface FailureIngestInput {
  /** The envelope recipient `<report_token>@<REPORT_DOMAIN>`. */
  recipient: string;
  /** The mail as postal-mime parsed it. */
  email: Pick<Email, "headers" | "attachments" | "from">;
}

const within = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);
const startOfDay = (now: Date) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());

export async function ingestFailureReport(svc: Services, input: FailureIngestInput): Promise<{ domain: string; auth_failure: string }> {
  const now = svc.clock.now();
  const t = await domainForRecipient(svc, input.recipient);
  if (t === null) throw refused("unknown_recipient", "The recipient is not a report address of any domain.");
  if (!t.verified) throw refused("domain_not_verified", "This report address belongs to a domain whose ownership is not verified.");
  // The address's daily report count applies to failure reports too, counted apart (docs/limits.md, D107).
  const limit = REPORT_LIMITS[await planOf(svc, t.id)].reports_per_day;
  const dayStart = startOfDay(now);
  if ((await countFailures(svc, t.id, { fromMs: dayStart })) >= limit) {
    const retry = Math.max(1, Math.ceil((dayStart + DAY_MS - now.getTime()) / 1000));
    throw new ApiError(429, "quota_exceeded", `This domain accepts ${limit} failure reports a day on its plan; retry tomorrow.`, undefined, {
      "Retry-After": String(retry),
    });
  }
  const read = readFailureReport(input.email);
  if (!read.ok) throw refused(read.error.code, `The failure report was refused (${read.error.code}): ${read.error.message}.`);
  const { reportedDomains, ...sample } = read.value;
  const stranger = reportedDomains.find((d) => !within(d, t.name));
  if (stranger !== undefined) throw refused("domain_mismatch", `The failure report is about ${stranger.slice(0, 253)}, not ${t.name}.`);
  await insertFailure(svc, t.id, sample, now);
  return { domain: t.name, auth_failure: sample.authFailure };
}
