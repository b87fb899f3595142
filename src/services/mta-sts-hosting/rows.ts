// The hosted_mta_sts row: reading it, the policy it serves, and the small JSON it keeps beside the
// Cloudflare state (hostname_details). Does I/O (D1) only in the readers.
import { and, eq } from "drizzle-orm";
import { type HostedPolicy, RETIRING_MAX_AGE } from "../../core/mta-sts/hosting";
import { hostedMtaSts } from "../../db/schema";
import type { Services } from "../../services";

export type HostedRow = typeof hostedMtaSts.$inferSelect;

/** What hostname_details holds: the API's last validation records and errors, and the id record's sync. */
export interface HostingDetails {
  validation: Array<{ txtName?: string; txtValue?: string; httpUrl?: string; httpBody?: string }>;
  errors: string[];
  /** The policy id last written to `<domain>.<MTA_STS_ID_ZONE>`; differs from policy_id until the API call succeeded. */
  idRecordSynced: string | null;
  /** The last API failure, shown to the user; null once a call succeeded. */
  apiError: string | null;
}

export function detailsOf(row: Pick<HostedRow, "hostnameDetails">): HostingDetails {
  try {
    const d = JSON.parse(row.hostnameDetails ?? "{}") as Partial<HostingDetails>;
    return {
      validation: Array.isArray(d.validation) ? d.validation : [],
      errors: Array.isArray(d.errors) ? d.errors.filter((e) => typeof e === "string") : [],
      idRecordSynced: typeof d.idRecordSynced === "string" ? d.idRecordSynced : null,
      apiError: typeof d.apiError === "string" ? d.apiError : null,
    };
  } catch {
    return { validation: [], errors: [], idRecordSynced: null, apiError: null };
  }
}

export const mxOf = (row: Pick<HostedRow, "mxPatterns">): string[] => {
  try {
    const v = JSON.parse(row.mxPatterns);
    return Array.isArray(v) ? v.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
};

/** The policy the row serves: its own, or while retiring `mode: none` with the small max_age (RFC 8461 §8.3). */
export function servedPolicy(row: HostedRow): HostedPolicy {
  if (row.state === "retiring") return { mode: "none", mx: mxOf(row), maxAge: RETIRING_MAX_AGE };
  return { mode: row.mode, mx: mxOf(row), maxAge: row.maxAge };
}

export const policyHost = (name: string) => `mta-sts.${name}`;
export const idHost = (name: string) => `_mta-sts.${name}`;
/** The TXT this service keeps in the operator's zone; the customer's `_mta-sts` CNAME points at it. */
export const idRecordName = (name: string, idZone: string) => `${name}.${idZone}`;

export async function hostedRowOf(svc: Services, teamId: number, domainId: number): Promise<HostedRow | undefined> {
  return svc.db
    .select()
    .from(hostedMtaSts)
    .where(and(eq(hostedMtaSts.domainId, domainId), eq(hostedMtaSts.teamId, teamId)))
    .get();
}

/** The row that serves `mta-sts.<name>` (the unique name index), whichever team it belongs to. */
export async function hostedRowByName(svc: Pick<Services, "db">, name: string): Promise<HostedRow | undefined> {
  return svc.db.select().from(hostedMtaSts).where(eq(hostedMtaSts.domainName, name)).get();
}
