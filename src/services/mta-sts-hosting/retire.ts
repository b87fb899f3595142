// DELETE /domains/{domain}/mta-sts-hosting: turning hosting off per RFC 8461 §8.3. The policy becomes
// `mode: none` with a small max_age under a NEW id (so senders re-fetch it), and is served until every
// policy served before has expired from senders' caches (safe_to_remove_at); the every-minute sweep then
// removes the custom hostname, the id record and the row (sweep.ts). Does I/O (D1, Cloudflare API).
import { RETIRING_MAX_AGE, safeToRemoveAt } from "../../core/mta-sts/hosting";
import type { Services } from "../../services";
import { requireWrite, type ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { notHosted } from "./errors";
import { hostedRowOf } from "./rows";
import { writePolicy } from "./write";

export async function retireHosting(svc: Services, ctx: ServiceContext, domainId: number): Promise<void> {
  requireWrite(ctx);
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const row = await hostedRowOf(svc, ctx.teamId, domainId);
  if (!row) throw notHosted();
  if (row.state === "retiring") return;
  const now = svc.clock.now();
  const largest = Math.max(row.retiringMaxAge ?? 0, row.maxAge);
  const safe = safeToRemoveAt(now, largest);
  await writePolicy(
    svc,
    ctx,
    domain,
    row,
    {
      state: "retiring",
      mode: "none",
      mxPatterns: row.mxPatterns,
      maxAge: RETIRING_MAX_AGE,
      idDelivery: row.idDelivery,
      retiringSince: now,
      retiringMaxAge: largest,
      safeToRemoveAt: safe,
    },
    { verb: "mta_sts_hosting.disable", summary: `mode=none until ${safe.toISOString()} (largest max_age served ${largest} s)`, newId: true },
  );
}
