// Fetches and checks the public key of one signature (RFC 6376 §3.6.2.2, §6.1.2), shared by DKIM
// signatures and ARC's AMS and AS (RFC 8617 §4.1.2, §4.1.3); DNS I/O only through the Resolver port.
import type { Resolver } from "../dns/types";
import type { KeyAnalysis } from "./key";
import type { DkimKeyCache } from "./key-cache";
import { looksLikeKeyRecord, type KeyRecord } from "./key-record";
import type { DkimSignature } from "./signature";

export type KeyCheck = Pick<DkimSignature, "selector" | "domain" | "algorithm" | "keyType" | "hash" | "identity">;

export interface ResolvedKey {
  /** "ok" means `analysis.material` is usable for this signature. */
  result: "ok" | "temperror" | "permerror";
  reason: string | null;
  /** The parsed record, when there was one (also when revoked or unusable), for reporting. */
  record: KeyRecord | null;
  /** The analysis, when the record parsed and is not revoked. */
  analysis: KeyAnalysis | null;
}

export async function resolveKey(sig: KeyCheck, resolver: Resolver, keys: DkimKeyCache): Promise<ResolvedKey> {
  const out = (result: ResolvedKey["result"], reason: string | null, record: KeyRecord | null = null, analysis: KeyAnalysis | null = null): ResolvedKey => ({
    result,
    reason,
    record,
    analysis,
  });
  // §3.6.2.2: the key lives at <s>._domainkey.<d> as TXT.
  const lookup = await resolver.query(`${sig.selector}._domainkey.${sig.domain}`, "TXT");
  if (lookup.kind === "temperror") return out("temperror", `key lookup failed: ${lookup.reason}`);
  if (lookup.kind !== "records") return out("permerror", `no key (${lookup.kind} at ${sig.selector}._domainkey.${sig.domain})`);
  const txts = lookup.records.filter(looksLikeKeyRecord);
  if (txts.length === 0) return out("permerror", "no key: the TXT records there are not DKIM key records");
  // §3.6.2.2: several records at one selector give undefined results; refuse rather than guess.
  if (txts.length > 1) return out("permerror", `${txts.length} key records at the selector`);
  // The record's parse and analysis depend only on its text (docs/decisions.md D53).
  const read = await keys.read(txts[0] ?? "");
  if (!read.record.ok) return out("permerror", read.record.error);
  const key = read.record.value;
  if (key.revoked) return out("permerror", "key revoked (empty p=)", key);
  const analysis = read.analysis;
  if (analysis === null) return out("permerror", "unusable key", key);
  if ("error" in analysis) return out("permerror", analysis.error, key);
  const fail = (reason: string) => out("permerror", reason, key, analysis);
  if (key.keyType !== sig.keyType) return fail(`key type k=${key.keyType} does not match a=${sig.algorithm}`);
  if (key.hashes !== null && !key.hashes.includes(sig.hash)) return fail(`key h=${key.hashes.join(":")} does not allow ${sig.hash}`);
  if (!key.services.includes("*") && !key.services.includes("email")) return fail("key s= excludes email");
  // §3.6.1 t=s: i= must use exactly d=, not a subdomain.
  if (key.strict && sig.identity.slice(sig.identity.lastIndexOf("@") + 1).toLowerCase() !== sig.domain) {
    return fail("key has t=s but i= is a subdomain of d=");
  }
  if (!analysis.usable || analysis.material === null) {
    return fail(analysis.findings.find((x) => x.severity === "Critical" || x.severity === "High")?.description ?? "unusable key");
  }
  return out("ok", null, key, analysis);
}
