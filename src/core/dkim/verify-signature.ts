// Verifies one DKIM-Signature from scratch (RFC 6376 §6.1); DNS I/O only through the injected Resolver.
import type { Resolver } from "../dns/types";
import type { BodyHashes } from "./body-canon";
import { base64Decode, base64Encode, encodeText } from "./bytes";
import { signedHeaderData } from "./canonicalize";
import { verifySignature } from "./crypto";
import type { DkimKeyCache } from "./key-cache";
import type { HeaderField, ParsedMessage } from "./message";
import { resolveKey } from "./resolve-key";
import { parseSignature, type DkimSignature, type ParseOptions } from "./signature";

export type DkimResult = "pass" | "fail" | "neutral" | "none" | "permerror" | "temperror";

export interface SignatureReport {
  domain: string | null;
  selector: string | null;
  algorithm: string | null;
  canonicalization: string | null; // "header/body"
  headers: string[]; // h= list as written
  key: { type: "rsa" | "ed25519"; bits: number | null; fingerprint: string | null; testing: boolean } | null;
  /** null only when the signature could not be parsed, so there was no bh= to compare. */
  body_hash: "pass" | "fail" | null;
  result: DkimResult;
  reason: string | null;
  expires_at: string | null;
  signed_at: string | null;
  aligned: boolean;
  alignment: "strict" | "relaxed" | "none";
  /** The key has t=y: RFC 6376 §3.6.1 says verifiers must treat the mail as unsigned, so it never counts as aligned. */
  testing: boolean;
  length_limited: boolean;
  /** Internal detail used for message-level warnings. */
  detail: { unsignedBodyBytes: number | null; fromSignedCount: number; keyBits: number | null; sig: DkimSignature | null };
}

/** Clock skew tolerated before a t= in the future makes the signature unusable. */
export const FUTURE_SKEW_SECONDS = 300;

export async function verifyOneSignature(
  field: HeaderField,
  msg: ParsedMessage,
  resolver: Resolver,
  now: Date,
  bodies: BodyHashes,
  keys: DkimKeyCache,
  /** Verify an ARC-Message-Signature (RFC 8617 §4.1.2) rather than a DKIM-Signature. */
  opts: ParseOptions = {},
): Promise<SignatureReport> {
  const r: SignatureReport = {
    domain: null,
    selector: null,
    algorithm: null,
    canonicalization: null,
    headers: [],
    key: null,
    body_hash: null,
    result: "permerror",
    reason: null,
    expires_at: null,
    signed_at: null,
    aligned: false,
    alignment: "none",
    testing: false,
    length_limited: false,
    detail: { unsignedBodyBytes: null, fromSignedCount: 0, keyBits: null, sig: null },
  };
  const done = (result: DkimResult, reason: string | null): SignatureReport => ({ ...r, result, reason });

  const parsed = parseSignature(field.value, opts);
  if (!parsed.ok) {
    Object.assign(r, { domain: parsed.error.domain, selector: parsed.error.selector, algorithm: parsed.error.algorithm });
    return done("permerror", `signature syntax: ${parsed.error.reason}`);
  }
  const sig = parsed.value;
  const iso = (s: number | null) => (s === null ? null : new Date(s * 1000).toISOString());
  Object.assign(r, {
    domain: sig.domain,
    selector: sig.selector,
    algorithm: sig.algorithm,
    canonicalization: `${sig.headerCanon}/${sig.bodyCanon}`,
    headers: sig.headers,
    signed_at: iso(sig.timestamp),
    expires_at: iso(sig.expiration),
    length_limited: sig.length !== null,
  });
  r.detail.sig = sig;
  r.detail.fromSignedCount = sig.headers.filter((h) => h.toLowerCase() === "from").length;

  // Body hash: it needs no key and tells the user whether the body was altered (§3.7).
  // Signatures with the same (c=, a=, l=) share one digest (docs/decisions.md D50). It is started
  // here and awaited after the key work, so the digest overlaps the lookup and the header check
  // (docs/decisions.md D53); every result below carries it.
  const bodyHash = bodies.hash(sig.bodyCanon, sig.hash, sig.length).then((bh) => {
    const lengthTooLong = sig.length !== null && sig.length > bh.available;
    if (sig.length !== null) r.detail.unsignedBodyBytes = Math.max(0, bh.available - sig.length);
    r.body_hash = !lengthTooLong && base64Encode(bh.hash) === sig.bodyHash ? "pass" : "fail";
    return { available: bh.available, lengthTooLong };
  });
  const end = async (result: DkimResult, reason: string | null): Promise<SignatureReport> => {
    await bodyHash;
    return done(result, reason);
  };

  // §5.4: From MUST be signed; §6.1.1 treats a signature without it as PERMFAIL. ARC has no such
  // rule for the AMS (RFC 8617 §4.1.2).
  if (r.detail.fromSignedCount === 0 && !opts.arc) return end("permerror", "From header is not in h= (RFC 6376 §5.4)");

  const resolved = await resolveKey(sig, resolver, keys);
  const { record: key, analysis } = resolved;
  if (key?.revoked) r.key = { type: key.keyType, bits: null, fingerprint: null, testing: key.testing };
  else if (analysis !== null) {
    r.key = { type: analysis.type, bits: analysis.bits, fingerprint: analysis.fingerprint, testing: analysis.testing };
    r.detail.keyBits = analysis.bits;
  }
  r.testing = r.key?.testing ?? false;
  if (resolved.result !== "ok" || key === null || analysis?.material == null)
    return end(resolved.result === "ok" ? "permerror" : resolved.result, resolved.reason);

  const sigBytes = base64Decode(sig.signature);
  const data = encodeText(signedHeaderData(msg.headers, sig.headers, field, sig.headerCanon), msg.binary);
  const valid = sigBytes !== null && (await verifySignature(analysis.material, sig.hash, sigBytes, data, { cache: keys, keyId: key.publicKey }));
  const { available, lengthTooLong } = await bodyHash;

  if (lengthTooLong) return end("fail", `l=${sig.length} is longer than the canonicalized body (${available} bytes)`);
  // §6.1.3 calls this PERMFAIL "body hash did not verify"; RFC 8601 "fail" fits (mailauth says neutral).
  if (r.body_hash === "fail") return end("fail", "body hash did not verify");
  if (!valid) return end("fail", "signature did not verify");
  // RFC 8301 §3.1: verifiers MUST NOT consider rsa-sha1 signatures valid. The crypto did check
  // out, so the reason says so, but the result is permerror (an unacceptable algorithm), never
  // pass. mailauth still passes sha1 (docs/decisions.md D18); we follow the RFC instead.
  if (sig.hash === "sha1") return end("permerror", "rsa-sha1 is not acceptable (RFC 8301 §3.1); the signature is otherwise valid");
  const nowS = Math.floor(now.getTime() / 1000);
  // §3.5 x= / §6.1.1: an expired signature is not valid; reported neutral (as mailauth does).
  if (sig.expiration !== null && nowS > sig.expiration) return end("neutral", "signature expired");
  if (sig.timestamp !== null && sig.timestamp > nowS + FUTURE_SKEW_SECONDS) return end("neutral", "signature timestamp (t=) is in the future");
  return end("pass", null);
}
