// The addresses that send the domain's mail, as its DMARC reports show them: sources that passed DMARC
// with aligned SPF or DKIM in the last week, by volume. Checks put them on blocklist lookups after the
// MX hosts and the domain's own SPF hosts (within the query cap). Does I/O (the domain's report object).
import type { Services } from "../../services";
import { DAY_MS } from "../../lib/time";
import { domainStore } from "../domains/domain-store";

export const SENDING_IPS_DAYS = 7;
export const MAX_SENDING_IPS = 10;

/** `domainId`: a domain the caller loaded (the check runner's own domain). */
export async function alignedSendingIps(svc: Services, domainId: number, now: Date, limit = MAX_SENDING_IPS): Promise<string[]> {
  const from = new Date(now.getTime() - SENDING_IPS_DAYS * DAY_MS).toISOString().slice(0, 10);
  return domainStore(svc, { id: domainId }).sendingIps(from, limit);
}
