// What the mover still has to do (GET /admin/report-moves, operators only): rows left in each legacy
// table still present, the domains whose DMARC reports are not moved yet (docs/decisions.md D131), and
// the webhook deliveries not moved into the team logs yet (D145). Does I/O (D1).
import type { Services } from "../../services";
import { countDomains, countRows, LEGACY_TABLES, presentTables } from "./legacy";
import { fannedOutEventsLeft, legacyDeliveriesLeft } from "./webhooks";

export interface MoveProgress {
  /** Every legacy table: its rows, or null once dropped. */
  tables: Array<{ name: string; rows: number | null }>;
  /** Domains with DMARC reports still in D1. */
  domains_left: number;
  /** True when no DMARC legacy table is left (the mover's part is done). */
  dmarc_done: boolean;
  /** True once legacy_deliveries is dropped and D1 holds no event fanned out by the old release (D145). */
  webhooks_done: boolean;
}

export async function reportMoveProgress(svc: Services): Promise<MoveProgress> {
  const present = await presentTables(svc);
  const tables = await Promise.all(LEGACY_TABLES.map(async (name) => ({ name, rows: present.includes(name) ? await countRows(svc, name) : null })));
  const deliveries = await legacyDeliveriesLeft(svc);
  const dmarcPresent = present.includes("legacy_dmarc_reports");
  return {
    tables: [...tables, { name: "legacy_deliveries", rows: deliveries }],
    domains_left: dmarcPresent ? await countDomains(svc) : 0,
    dmarc_done: !dmarcPresent && !present.includes("legacy_dmarc_rows"),
    webhooks_done: deliveries === null && !(await fannedOutEventsLeft(svc)),
  };
}
