// Brings Cloudflare in line with a committed row: the custom hostname mta-sts.<domain> (its certificate)
// and, with the CNAME id delivery, the TXT `<domain>.<MTA_STS_ID_ZONE>` holding the current id. Runs
// AFTER the D1 commit, so the new policy is served before any sender can see the new id (RFC 8461 §3.1:
// a sender fetches the policy when the id changes, and keeps what it got for max_age). A failed call is
// kept on the row and retried by the every-minute sweep. Does I/O (Cloudflare API, D1).
import { and, eq, sql } from "drizzle-orm";
import { stsRecord } from "../../core/mta-sts/hosting";
import { hostedMtaSts } from "../../db/schema";
import type { Services } from "../../services";
import { type CloudflareClient, CloudflareApiError, cloudflareClient, type HostnameState } from "./cloudflare-api";
import { devCloudflareFetch } from "./dev-cloudflare-api";
import { detailsOf, type HostedRow, type HostingDetails, idRecordName, policyHost } from "./rows";
import { apiConfigured, hostingSettings } from "./settings";

/** The API client of this deployment, or null when hosting is not managed through Cloudflare. */
export function clientFor(svc: Services): CloudflareClient | null {
  const s = hostingSettings(svc);
  if (!apiConfigured(s)) return null;
  return cloudflareClient(s, s.devFake ? devCloudflareFetch : svc.fetch);
}

const apiMessage = (e: unknown): string => (e instanceof CloudflareApiError ? e.message : "The Cloudflare API call failed.");

async function ensureHostname(api: CloudflareClient, row: HostedRow, refresh: Refresh): Promise<HostnameState | null> {
  const name = policyHost(row.domainName);
  if (row.customHostnameId) {
    if (!refresh) return null;
    const found = refresh === "revalidate" ? await api.revalidateHostname(row.customHostnameId) : await api.getHostname(row.customHostnameId);
    if (found) return found;
  }
  try {
    return await api.createHostname(name);
  } catch (e) {
    // Created by an earlier attempt whose answer was lost, or by hand: adopt it.
    const existing = e instanceof CloudflareApiError && e.status === 409 ? await api.findHostname(name) : null;
    if (existing) return existing;
    throw e;
  }
}

/** false: create what is missing only; true: also read the hostname's state; "revalidate": ask for validation again. */
export type Refresh = boolean | "revalidate";

/** Syncs and stores the outcome; returns the row as stored. */
export async function syncExternal(svc: Services, row: HostedRow, refresh: Refresh = false): Promise<HostedRow> {
  const api = clientFor(svc);
  if (!api) return row;
  const settings = hostingSettings(svc);
  const details: HostingDetails = detailsOf(row);
  const set: Partial<typeof hostedMtaSts.$inferInsert> = {};
  const now = svc.clock.now();
  try {
    const state = await ensureHostname(api, row, refresh);
    if (state) {
      Object.assign(set, { customHostnameId: state.id, hostnameStatus: state.status, certificateStatus: state.sslStatus, hostnameCheckedAt: now });
      details.validation = state.validation;
      details.errors = state.errors;
    }
    if (row.idDelivery === "cname" && settings.idZone && details.idRecordSynced !== row.policyId) {
      await api.putTxt(idRecordName(row.domainName, settings.idZone), stsRecord(row.policyId));
      details.idRecordSynced = row.policyId;
    }
    details.apiError = null;
  } catch (e) {
    details.apiError = apiMessage(e);
    // Stamped on a failed attempt too, so the sweep takes the longest-waiting rows first during an outage.
    set.hostnameCheckedAt = now;
    console.error(JSON.stringify({ level: "error", msg: "mta-sts hosting sync", domain_id: row.domainId, error: details.apiError }));
  }
  set.hostnameDetails = JSON.stringify(details);
  const updated = await svc.db.update(hostedMtaSts).set(set).where(eq(hostedMtaSts.domainId, row.domainId)).returning().get();
  return updated ?? row;
}

/**
 * After removeExternal deleted the hostname and id record of a row that was turned back on meanwhile:
 * the row no longer names them, so the sweep's resync creates both again (the hostname id is cleared
 * only if no sync adopted another one since).
 */
export async function forgetExternal(svc: Services, removed: HostedRow): Promise<void> {
  await svc.db
    .update(hostedMtaSts)
    .set({
      customHostnameId: null,
      hostnameStatus: null,
      certificateStatus: null,
      hostnameCheckedAt: null,
      hostnameDetails: sql`json_set(coalesce(${hostedMtaSts.hostnameDetails}, '{}'), '$.idRecordSynced', json('null'))`,
    })
    .where(and(eq(hostedMtaSts.domainId, removed.domainId), sql`${hostedMtaSts.customHostnameId} IS ${removed.customHostnameId}`));
}

/** Removes what Cloudflare holds for a row (hostname, id record). Throws when the API fails, so the row stays. */
export async function removeExternal(svc: Services, row: HostedRow): Promise<void> {
  const api = clientFor(svc);
  if (!api) return;
  const settings = hostingSettings(svc);
  if (row.customHostnameId) await api.deleteHostname(row.customHostnameId);
  if (settings.idZone) await api.deleteTxt(idRecordName(row.domainName, settings.idZone));
}
