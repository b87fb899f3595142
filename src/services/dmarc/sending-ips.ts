// The addresses that send the domain's mail, as its DMARC reports show them: sources that passed DMARC
// with aligned SPF or DKIM in the last week, by volume. Checks put them on blocklist lookups after the
// MX hosts and the domain's own SPF hosts (within the query cap). Does I/O (D1).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";
import { DAY_MS } from "../../lib/time";

export const SENDING_IPS_DAYS = 7;
export const MAX_SENDING_IPS = 10;

export async function alignedSendingIps(svc: Services, domainId: number, now: Date, limit = MAX_SENDING_IPS): Promise<string[]> {
  const from = new Date(now.getTime() - SENDING_IPS_DAYS * DAY_MS).toISOString().slice(0, 10);
  const rows = await svc.db.all<{ ip: string }>(sql`
    SELECT r.source_ip AS ip FROM dmarc_rows r JOIN dmarc_reports p ON p.id = r.report_id
    WHERE r.domain_id = ${domainId} AND r.day >= ${from} AND p.status = 'complete' AND (r.dkim_aligned = 1 OR r.spf_aligned = 1)
    GROUP BY r.source_ip ORDER BY SUM(r.messages) DESC LIMIT ${limit}`);
  return rows.map((r) => r.ip);
}
