// PUT /domains/{domain}/mta-sts-hosting: turns hosting on (verified domains only, one team per name) or
// changes the policy. Patterns default to the live MX hosts and must cover every one (RFC 8461 §4.1);
// `mode: enforce` passes the TLS report rule (docs/decisions.md D216); every policy change gets a new id.
// Does I/O (D1, DNS, DO, Cloudflare API).
import { DEFAULT_MAX_AGE, patternsFromMx, validatePolicyInput } from "../../core/mta-sts/hosting";
import { conflict, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { requireWrite, type ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { domainNotVerified } from "./errors";
import { DEFAULT_TLS_WINDOW_DAYS, enforceEvidence, liveMxHosts } from "./evidence";
import { hostedRowOf, mxOf } from "./rows";
import { hostingSettings } from "./settings";
import { writePolicy } from "./write";

export interface HostingInput {
  mode?: "testing" | "enforce";
  mx?: string[];
  max_age?: number;
  id_delivery?: "cname" | "txt";
  /** The TLS report window the enforce rule reads (days). */
  tls_window_days?: number;
}

export async function putHosting(svc: Services, ctx: ServiceContext, domainId: number, input: HostingInput): Promise<{ created: boolean }> {
  requireWrite(ctx);
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  if (!domain.verified) throw domainNotVerified();
  const existing = await hostedRowOf(svc, ctx.teamId, domainId);
  const active = existing?.state === "active" ? existing : undefined;
  const settings = hostingSettings(svc);

  const idDelivery = input.id_delivery ?? existing?.idDelivery ?? (settings.idZone ? "cname" : "txt");
  if (idDelivery === "cname" && !settings.idZone) {
    throw validationFailed({ id_delivery: ["This deployment has no zone for id records (MTA_STS_ID_ZONE): use txt."] });
  }
  const mxHosts = await liveMxHosts(svc, domain.name);
  const checked = validatePolicyInput(
    { mx: input.mx ?? (active ? mxOf(active) : patternsFromMx(mxHosts)), maxAge: input.max_age ?? active?.maxAge ?? DEFAULT_MAX_AGE },
    mxHosts,
  );
  if (!checked.ok) throw validationFailed(checked.error);
  const mode = input.mode ?? active?.mode ?? "testing";
  if (mode === "enforce" && active?.mode !== "enforce") {
    const evidence = await enforceEvidence(svc, ctx, domainId, input.tls_window_days ?? DEFAULT_TLS_WINDOW_DAYS);
    if (!evidence.verdict.allowed) throw conflict(`Enforce is not allowed yet: ${evidence.verdict.reason}`);
  }

  const { mx, maxAge } = checked.value;
  const policyChanged = !active || active.mode !== mode || active.maxAge !== maxAge || JSON.stringify(mxOf(active)) !== JSON.stringify(mx);
  if (!policyChanged && active.idDelivery === idDelivery) return { created: false };
  // The largest max_age ever served: a retiring policy must outlive every cache of it (RFC 8461 §8.3, D217).
  const largest = Math.max(existing?.retiringMaxAge ?? 0, existing?.state === "active" ? existing.maxAge : 0, maxAge);
  const summary = `mode=${mode} max_age=${maxAge} mx=${mx.join(",")} id_delivery=${idDelivery}`;
  await writePolicy(
    svc,
    ctx,
    domain,
    existing,
    {
      state: "active",
      mode,
      mxPatterns: JSON.stringify(mx),
      maxAge,
      idDelivery,
      retiringSince: null,
      retiringMaxAge: largest,
      safeToRemoveAt: null,
    },
    { verb: active ? "mta_sts_hosting.update" : "mta_sts_hosting.enable", summary, newId: policyChanged },
  );
  return { created: !existing };
}
