// What a receiver that trusts an ARC sealer could do with a DMARC failure (RFC 8617 §7.2): read the
// ARC-Authentication-Results that sealer recorded and override the policy as a local decision. Pure.
import type { ArcReport } from "../arc";
import type { DmarcEvaluation } from "./dmarc";
import { parseAuthResults } from "./trace";

export interface ArcOverride {
  /** DMARC did not pass and the chain validated, so a receiver may use ARC (RFC 8617 §7.2). */
  applicable: boolean;
  /** d= of the ARC-Seal of the oldest set from which every AMS validates: the sealer to trust. */
  sealer: string | null;
  instance: number | null;
  /** The results that sealer recorded when the message reached it (its AAR). */
  recorded: { authserv_id: string | null; dmarc: string | null; spf: string | null; dkim: string | null } | null;
  /** The DMARC result a receiver trusting the sealer would act on; null when there is nothing to override. */
  result_if_trusted: "pass" | "fail" | null;
  disposition_if_trusted: DmarcEvaluation["disposition"] | null;
  explanation: string;
}

export function arcOverride(dmarc: DmarcEvaluation, arc: ArcReport): ArcOverride {
  const base = { sealer: null, instance: null, recorded: null, result_if_trusted: null, disposition_if_trusted: null };
  if (dmarc.result === "pass") return { ...base, applicable: false, explanation: "DMARC passed; there is nothing for ARC to override." };
  if (arc.result !== "pass" || arc.oldest_pass === null) {
    const why =
      arc.result === "none"
        ? "the message carries no ARC chain"
        : arc.result === "temperror"
          ? "the chain could not be validated (a key lookup failed)"
          : `the ARC chain is broken${arc.broken_at !== null ? ` at instance ${arc.broken_at}` : ""}`;
    return { ...base, applicable: false, explanation: `DMARC ${dmarc.result}, and ${why}, so no receiver can rely on ARC to deliver it.` };
  }
  const set = arc.sets.find((s) => s.instance === arc.oldest_pass) ?? null;
  const sealer = set?.as.domain ?? null;
  const aar = set ? parseAuthResults(`${set.aar.authserv_id ?? "unknown"}; ${set.aar.results}`) : null;
  const pick = (method: string) => aar?.results.find((r) => r.method === method)?.result ?? null;
  const recorded = { authserv_id: set?.aar.authserv_id ?? null, dmarc: pick("dmarc"), spf: pick("spf"), dkim: pick("dkim") };
  const instance = arc.oldest_pass;
  if (recorded.dmarc === "pass") {
    return {
      applicable: true,
      sealer,
      instance,
      recorded,
      result_if_trusted: "pass",
      disposition_if_trusted: "none",
      explanation: `DMARC ${dmarc.result} here, but ${sealer ?? "the sealer"} (ARC instance ${instance}) recorded dmarc=pass when the message reached it. A receiver that trusts ${sealer ?? "that sealer"} may deliver it as a DMARC pass, overriding the ${dmarc.disposition} policy as local policy (RFC 8617 §7.2; reported as the local_policy override, RFC 7489 §7.2.1).`,
    };
  }
  return {
    applicable: true,
    sealer,
    instance,
    recorded,
    result_if_trusted: recorded.dmarc === null ? null : "fail",
    disposition_if_trusted: recorded.dmarc === null ? null : dmarc.disposition,
    explanation:
      recorded.dmarc === null
        ? `The chain validates, but ${sealer ?? "the sealer"} recorded no DMARC result, so a receiver has no earlier pass to rely on.`
        : `The chain validates, but ${sealer ?? "the sealer"} recorded dmarc=${recorded.dmarc}: the message already failed before it was forwarded, so ARC gives no reason to override.`,
  };
}
