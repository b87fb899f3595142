// Due checks (run every minute by cron): claim due verified domains in one statement and enqueue one check each, 100 per sendBatch. Does I/O (D1, queue).
import type { Services } from "../../services";
import { claimDueDomains, enqueueChecks } from "../domains/schedule";

/** Claims per round and rounds per tick: up to 10,000 domains a minute, well inside the cron's wall time. */
export const CLAIM_CHUNK = 1_000;
export const MAX_ROUNDS = 10;

export interface DueChecksResult {
  claimed: number;
  enqueued: number;
  rowsRead: number;
}

export async function runDueChecks(svc: Services, opts: { chunk?: number; rounds?: number } = {}): Promise<DueChecksResult> {
  const chunk = opts.chunk ?? CLAIM_CHUNK;
  const out: DueChecksResult = { claimed: 0, enqueued: 0, rowsRead: 0 };
  for (let round = 0; round < (opts.rounds ?? MAX_ROUNDS); round++) {
    const claim = await claimDueDomains(svc, svc.clock.now(), chunk);
    out.claimed += claim.ids.length;
    out.rowsRead += claim.rowsRead;
    // A failed enqueue leaves the lease in place: the domains come due again when it expires.
    out.enqueued += await enqueueChecks(
      svc,
      claim.checks.map((c) => ({ domain_id: c.domainId, check_id: c.checkId, trigger: "scheduled" as const })),
    );
    if (claim.ids.length < chunk) break;
  }
  if (out.claimed > 0) console.log(JSON.stringify({ level: "info", msg: "due checks enqueued", ...out }));
  return out;
}
