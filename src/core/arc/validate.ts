// ARC chain validation (RFC 8617 §5.2) of a raw message; DNS I/O only through the Resolver port.
import type { Resolver } from "../dns/types";
import { BodyHashes } from "../dkim/body-canon";
import { DkimKeyCache } from "../dkim/key-cache";
import { parseMessage, type WireMessage } from "../dkim/message";
import type { SignatureReport } from "../dkim/verify-signature";
import { verifyAms } from "./ams";
import { collectArcSets, readAar, structureProblem, type ArcSetFields } from "./collect";
import { parseSeal, sealCv, verifySeal, type ChainStatus, type SealCheck } from "./seal";

export interface ArcDeps {
  resolver: Resolver;
  now: Date;
  /** Parsed key records and imported keys shared across messages (docs/decisions.md D53). */
  keyCache?: DkimKeyCache;
}

/**
 * One signature's outcome: the DKIM results (RFC 8601 §2.7.1), "not_checked" when validation
 * stopped before it (§5.2 stops at the first failure; older AMSs are only read for oldest_pass), and
 * "missing" when the set has no such field.
 */
export type ArcSignatureResult = "pass" | "fail" | "neutral" | "permerror" | "temperror" | "not_checked" | "missing";

export interface ArcSetReport {
  instance: number;
  ams: { result: ArcSignatureResult; domain: string | null; selector: string | null; reason?: string };
  as: { result: ArcSignatureResult; domain: string | null; selector: string | null; cv: string; reason?: string };
  aar: { authserv_id: string | null; results: string };
}

export interface ArcReport {
  /**
   * The outcome: the chain validation status, or "temperror" when a key lookup failed temporarily
   * and nothing failed for good (RFC 8617 defines only none/pass/fail; a DNS failure is never
   * "fail": docs/decisions.md D199).
   */
  result: "none" | "pass" | "fail" | "temperror";
  /** RFC 8617 §4.4 chain validation status, what a sealer would write as cv=; null on temperror. */
  cv: ChainStatus | null;
  sets: ArcSetReport[];
  /** The instance whose AMS or AS first failed, or where the structure broke; null otherwise. */
  broken_at: number | null;
  /** §5.2 step 5: the lowest instance from which every AMS up to N validates; only when cv is pass. */
  oldest_pass: number | null;
  reason: string | null;
  warnings: string[];
}

/**
 * Each set costs two key lookups and two public-key operations, so a message stuffed with sets
 * could turn validation into a DNS amplifier (RFC 8617 §9.3). RFC 8617 allows 50 (§4.2.1); real
 * chains are a handful of hops, so longer chains are refused with cv=fail (docs/decisions.md D200).
 */
export const MAX_ARC_SETS = 10;

export async function validateArc(raw: string | Uint8Array | WireMessage, deps: ArcDeps): Promise<ArcReport> {
  const msg = parseMessage(raw);
  const warnings: string[] = [];
  if (msg.normalized) warnings.push("bare LF line endings were converted to CRLF before validation");
  const chain = collectArcSets(msg.headers);
  const sets = chain.sets.map(initialReport);
  const report = (result: ArcReport["result"], reason: string | null, broken_at: number | null = null, oldest_pass: number | null = null): ArcReport => ({
    result,
    cv: result === "temperror" ? null : result,
    sets,
    broken_at,
    oldest_pass,
    reason,
    warnings,
  });

  // §5.2 step 1: no ARC Sets, status none.
  if (chain.sets.length === 0 && chain.unplaced.length === 0) return report("none", null);
  const N = chain.highest;
  if (N > MAX_ARC_SETS || chain.sets.length > MAX_ARC_SETS) {
    warnings.push(`${N} ARC Sets; this validator checks at most ${MAX_ARC_SETS} (RFC 8617 allows 50)`);
    return report("fail", `more than ${MAX_ARC_SETS} ARC Sets; chains this long are not validated`, N);
  }
  // §5.2 step 2: the newest seal already says the chain failed.
  const newest = chain.sets.find((s) => s.instance === N);
  if (newest?.as.length === 1 && sealCv(newest.as[0]?.value ?? "") === "fail") {
    return report("fail", `the newest ARC-Seal (i=${N}) has cv=fail: an earlier sealer found the chain broken (RFC 8617 §5.2 step 2)`, N);
  }
  // §5.2 step 3: structure, then the cv of every seal.
  const problem = structureProblem(chain);
  if (problem) return report("fail", problem.reason, problem.instance);
  for (const set of chain.sets) {
    const cv = sealCv(set.as[0]?.value ?? "");
    const want = set.instance === 1 ? "none" : "pass";
    if (cv !== want) {
      return report("fail", `ARC-Seal i=${set.instance} has cv=${cv ?? "(none)"}; it must be ${want} (RFC 8617 §5.2 step 3)`, set.instance);
    }
  }

  // Steps 4 to 6. Every signature is independent, so all are checked at once and read in the
  // RFC's order below; the chain is at most MAX_ARC_SETS long.
  const bodies = new BodyHashes(msg.bodyBytes);
  const keys = deps.keyCache ?? new DkimKeyCache(4 * MAX_ARC_SETS);
  const [amsChecks, sealChecks] = await Promise.all([
    Promise.all(chain.sets.map((s) => verifyAms(s.ams[0] as NonNullable<ArcSetFields["ams"][0]>, msg, deps.resolver, deps.now, bodies, keys))),
    Promise.all(chain.sets.map((s) => verifySeal(chain.sets, s.instance, deps.resolver, keys, msg.binary))),
  ]);
  let temporary: string | null = null;
  const amsN = amsChecks[N - 1] as SignatureReport;
  // Step 4: the newest AMS must validate.
  recordAms(sets[N - 1] as ArcSetReport, amsN);
  if (amsN.result === "temperror") temporary ??= `ARC-Message-Signature i=${N}: ${amsN.reason}`;
  else if (amsN.result !== "pass") return report("fail", `ARC-Message-Signature i=${N} did not validate: ${amsN.reason}`, N);
  // Step 5 (optional): walk older AMSs down while they validate.
  let oldest: number | null = amsN.result === "pass" ? N : null;
  for (let i = N - 1; i >= 1 && oldest === i + 1; i--) {
    const ams = amsChecks[i - 1] as SignatureReport;
    recordAms(sets[i - 1] as ArcSetReport, ams);
    if (ams.result === "pass") oldest = i;
  }
  // Step 6: every seal, newest first.
  for (let i = N; i >= 1; i--) {
    const seal = sealChecks[i - 1] as SealCheck;
    recordSeal(sets[i - 1] as ArcSetReport, seal);
    if (seal.result === "temperror") temporary ??= `ARC-Seal i=${i}: ${seal.reason}`;
    else if (seal.result !== "pass") return report("fail", `ARC-Seal i=${i} did not validate: ${seal.reason}`, i);
  }
  if (temporary !== null) return report("temperror", `a key lookup failed temporarily; retry later (${temporary})`);
  // Step 7.
  return report("pass", null, null, oldest);
}

function initialReport(set: ArcSetFields): ArcSetReport {
  const as = set.as[0];
  const seal = as ? parseSeal(as.value) : null;
  const ams = set.ams[0];
  const amsTag = (tag: string) =>
    ams
      ? (new RegExp(`(?:^|;)[ \\t\\r\\n]*${tag}[ \\t\\r\\n]*=([^;]*)`)
          .exec(ams.value)?.[1]
          ?.replace(/[ \t\r\n]+/g, "")
          .toLowerCase() ?? null)
      : null;
  return {
    instance: set.instance,
    ams: { result: ams ? "not_checked" : "missing", domain: amsTag("d"), selector: amsTag("s") },
    as: {
      result: as ? "not_checked" : "missing",
      domain: seal ? (seal.ok ? seal.value.domain : seal.error.domain) : null,
      selector: seal ? (seal.ok ? seal.value.selector : seal.error.selector) : null,
      cv: as ? (sealCv(as.value) ?? "") : "",
    },
    aar: set.aar[0] ? readAar(set.aar[0].value) : { authserv_id: null, results: "" },
  };
}

function recordAms(r: ArcSetReport, check: SignatureReport): void {
  r.ams = { result: check.result === "none" ? "permerror" : check.result, domain: check.domain, selector: check.selector };
  if (check.reason !== null) r.ams.reason = check.reason;
}

function recordSeal(r: ArcSetReport, check: SealCheck): void {
  r.as.result = check.result;
  if (check.reason !== null) r.as.reason = check.reason;
}
