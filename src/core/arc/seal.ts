// Reads an ARC-Seal (RFC 8617 §4.1.3), builds the data it signs (§5.1.1) and verifies it with the
// DKIM key lookup and crypto; DNS I/O only through the Resolver port.
import type { Resolver } from "../dns/types";
import { base64Decode, encodeText } from "../dkim/bytes";
import { canonHeaderRelaxed, withEmptyB } from "../dkim/canonicalize";
import { verifySignature } from "../dkim/crypto";
import type { DkimKeyCache } from "../dkim/key-cache";
import type { HeaderField } from "../dkim/message";
import { resolveKey } from "../dkim/resolve-key";
import type { SigAlgorithm } from "../dkim/signature";
import { parseTagList, stripFws } from "../dkim/tags";
import { err, ok, type Result } from "../types";
import type { ArcSetFields } from "./collect";

export type ChainStatus = "none" | "pass" | "fail";

export interface ArcSeal {
  algorithm: Exclude<SigAlgorithm, "rsa-sha1">;
  keyType: "rsa" | "ed25519";
  signature: string; // b=, FWS removed
  domain: string;
  selector: string;
  instance: number;
  cv: ChainStatus;
  timestamp: number | null;
}

/** What a seal that does not parse still says, for the report. */
export interface SealParseError {
  reason: string;
  domain: string | null;
  selector: string | null;
  cv: string | null;
}

// §4.1.3: a, b, cv, d, i, s are needed; t is optional (the suite's as_fields_t_na passes).
const REQUIRED = ["a", "b", "cv", "d", "i", "s"] as const;
const NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/** The cv= of a seal read leniently (even from a broken tag-list), lower case, for the structure check. */
export function sealCv(value: string): string | null {
  return (
    /(?:^|;)[ \t\r\n]*cv[ \t\r\n]*=([^;]*)/
      .exec(value)?.[1]
      ?.replace(/[ \t\r\n]+/g, "")
      .toLowerCase() ?? null
  );
}

export function parseSeal(value: string): Result<ArcSeal, SealParseError> {
  const parsed = parseTagList(value);
  const lenient = (tag: string) => new RegExp(`(?:^|;)[ \\t\\r\\n]*${tag}[ \\t\\r\\n]*=([^;]*)`).exec(value)?.[1]?.trim().toLowerCase() || null;
  const t = parsed.ok ? parsed.value : null;
  const fail = (reason: string): Result<never, SealParseError> =>
    err({
      reason,
      domain: (t ? t.get("d")?.trim().toLowerCase() : lenient("d")) ?? null,
      selector: (t ? t.get("s")?.trim().toLowerCase() : lenient("s")) ?? null,
      cv: sealCv(value),
    });
  if (!parsed.ok || t === null) return fail(parsed.ok ? "unreadable tag list" : parsed.error);
  for (const tag of REQUIRED) if (!t.has(tag)) return fail(`missing required tag ${tag}=`);
  // §4.1.3: "the DKIM 'h' tag is NOT allowed and if found, MUST result in a cv status of 'fail'".
  if (t.has("h")) return fail("h= is not allowed in an ARC-Seal (RFC 8617 §4.1.3)");
  const a = (t.get("a") ?? "").trim().toLowerCase();
  // RFC 8301 §3.1: rsa-sha1 must not be accepted; RFC 8463 adds ed25519-sha256.
  if (a !== "rsa-sha256" && a !== "ed25519-sha256") return fail(`unsupported algorithm a=${a}`);
  const b = stripFws(t.get("b") ?? "");
  if (b === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(b)) return fail("b= is empty or not base64");
  const cv = stripFws(t.get("cv") ?? "").toLowerCase();
  if (cv !== "none" && cv !== "pass" && cv !== "fail") return fail(`cv=${t.get("cv")} is not none, pass or fail (RFC 8617 §3.9)`);
  const domain = stripFws(t.get("d") ?? "")
    .toLowerCase()
    .replace(/\.$/, "");
  if (!NAME.test(domain)) return fail(`invalid domain d=${domain}`);
  const selector = stripFws(t.get("s") ?? "").toLowerCase();
  if (!NAME.test(selector)) return fail(`invalid selector s=${selector}`);
  const i = stripFws(t.get("i") ?? "");
  if (!/^[0-9]{1,2}$/.test(i) || Number(i) < 1 || Number(i) > 50) return fail(`i=${i} is not an ARC instance (1 to 50)`);
  const tv = t.get("t");
  if (tv !== undefined && !/^[0-9]{1,12}$/.test(stripFws(tv))) return fail("t= is not a number");
  return ok({
    algorithm: a,
    keyType: a === "rsa-sha256" ? "rsa" : "ed25519",
    signature: b,
    domain,
    selector,
    instance: Number(i),
    cv,
    timestamp: tv === undefined ? null : Number(stripFws(tv)),
  });
}

/**
 * §5.1.1: the seal of instance i signs, with relaxed header canonicalization, the ARC header fields
 * of sets 1..i in instance order, each set as AAR, AMS, AS; the seal itself last with b= empty and
 * without its final CRLF. `sets` must be the chain's sets in ascending order, one field of each.
 */
export function sealedData(sets: ArcSetFields[], instance: number): string {
  const parts: string[] = [];
  for (const set of sets) {
    if (set.instance > instance) break;
    const [aar, ams, as] = [set.aar[0], set.ams[0], set.as[0]];
    if (!aar || !ams || !as) throw new Error(`ARC Set i=${set.instance} is incomplete`);
    parts.push(canonHeaderRelaxed(aar), canonHeaderRelaxed(ams));
    parts.push(set.instance === instance ? canonHeaderRelaxed(withEmptyB(as)).slice(0, -2) : canonHeaderRelaxed(as));
  }
  return parts.join("");
}

export interface SealCheck {
  result: "pass" | "fail" | "permerror" | "temperror";
  reason: string | null;
  seal: ArcSeal | null;
}

export async function verifySeal(sets: ArcSetFields[], instance: number, resolver: Resolver, keys: DkimKeyCache, binary: boolean): Promise<SealCheck> {
  const field: HeaderField | undefined = sets.find((s) => s.instance === instance)?.as[0];
  if (!field) return { result: "permerror", reason: `no ARC-Seal for i=${instance}`, seal: null };
  const parsed = parseSeal(field.value);
  if (!parsed.ok) return { result: "permerror", reason: `seal syntax: ${parsed.error.reason}`, seal: null };
  const seal = parsed.value;
  const key = await resolveKey({ ...seal, hash: "sha256", identity: `@${seal.domain}` }, resolver, keys);
  if (key.result !== "ok" || !key.record || !key.analysis?.material)
    return { result: key.result === "ok" ? "permerror" : key.result, reason: key.reason, seal };
  const sig = base64Decode(seal.signature);
  const data = encodeText(sealedData(sets, instance), binary);
  const valid = sig !== null && (await verifySignature(key.analysis.material, "sha256", sig, data, { cache: keys, keyId: key.record.publicKey }));
  return valid ? { result: "pass", reason: null, seal } : { result: "fail", reason: "seal signature did not verify", seal };
}
