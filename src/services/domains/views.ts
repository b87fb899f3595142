// Response shapes of a domain: the list view, the ownership record, the DMARC report address. No I/O.
import type { Config } from "../../config";
import { iso } from "../../lib/time";
import type { DomainRow } from "./get-domain";

export const VERIFY_PREFIX = "_emailauth-verify";

export const verificationRecord = (d: Pick<DomainRow, "name" | "verificationToken">) => ({
  host: `${VERIFY_PREFIX}.${d.name}`,
  type: "TXT" as const,
  value: `emailauth-verify=${d.verificationToken}`,
});

export const reportAddress = (d: Pick<DomainRow, "reportToken">, config: Config) => `${d.reportToken}@${config.reportDomain}`;

export const domainView = (d: DomainRow) => ({
  id: d.id,
  name: d.name,
  client: d.client,
  verified: d.verified,
  verified_at: iso(d.verifiedAt),
  score: d.score,
  grade: d.grade,
  dmarc_policy: d.dmarcPolicy,
  last_checked_at: iso(d.lastCheckedAt),
  next_check_at: iso(d.nextCheckAt),
  registration_expires_at: iso(d.registrationExpiresAt),
  created_at: iso(d.createdAt),
});
export type DomainView = ReturnType<typeof domainView>;

export const domainRef = (d: Pick<DomainRow, "id" | "name">) => ({ id: d.id, name: d.name });
