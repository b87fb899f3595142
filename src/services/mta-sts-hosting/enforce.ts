// POST /domains/{domain}/mta-sts-hosting/enforce: the one click from testing to enforce, allowed only when
// the TLS reports of the chosen window show sessions and no failure (docs/decisions.md D216) and the
// patterns still cover every live MX host (RFC 8461 §4.1). A new id goes out with it. Does I/O.
import { uncoveredMx } from "../../core/mta-sts/hosting";
import { conflict } from "../../lib/errors";
import type { Services } from "../../services";
import { requireWrite, type ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { domainNotVerified, notHosted } from "./errors";
import { DEFAULT_TLS_WINDOW_DAYS, enforceEvidence, liveMxHosts } from "./evidence";
import { hostedRowOf, mxOf } from "./rows";
import { writePolicy } from "./write";

export async function enforceHosting(svc: Services, ctx: ServiceContext, domainId: number, days = DEFAULT_TLS_WINDOW_DAYS): Promise<void> {
  requireWrite(ctx);
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  // As PUT: a policy is changed only for a domain whose ownership is verified now (turning off is not gated).
  if (!domain.verified) throw domainNotVerified();
  const row = await hostedRowOf(svc, ctx.teamId, domainId);
  if (row?.state !== "active") throw notHosted();
  if (row.mode === "enforce") return;
  const missing = uncoveredMx(mxOf(row), await liveMxHosts(svc, domain.name));
  if (missing.length > 0) throw conflict(`The policy does not cover ${missing.join(", ")}: add mx patterns for them before enforcing (RFC 8461 §4.1).`);
  const evidence = await enforceEvidence(svc, ctx, domainId, days);
  if (!evidence.verdict.allowed) throw conflict(`Enforce is not allowed yet: ${evidence.verdict.reason}`);
  await writePolicy(
    svc,
    ctx,
    domain,
    row,
    { state: "active", mode: "enforce", mxPatterns: row.mxPatterns, maxAge: row.maxAge, idDelivery: row.idDelivery },
    { verb: "mta_sts_hosting.enforce", summary: `mode=enforce (${evidence.verdict.reason})`, newId: true },
  );
}
