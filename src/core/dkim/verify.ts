// Verifies every DKIM-Signature of a raw message and summarises the outcome; DNS I/O via the Resolver port.
import type { Resolver } from "../dns/types";
import { extractFromDomain, parseMessage, type WireMessage } from "./message";
import { BodyHashes } from "./body-canon";
import { DkimKeyCache } from "./key-cache";
import { verifyOneSignature, type DkimResult, type SignatureReport } from "./verify-signature";

export type { DkimResult, SignatureReport } from "./verify-signature";

export interface VerifyDeps {
  resolver: Resolver;
  now: Date;
  /** DMARC organizational domain (RFC 9989 tree walk), injected from src/core/dmarc. */
  orgDomain: (d: string) => Promise<string | null>;
  /**
   * Parsed key records and imported keys to reuse across messages (docs/decisions.md D53); without
   * it each message reads and imports its keys afresh.
   */
  keyCache?: DkimKeyCache;
}

export interface VerifyReport {
  result: Exclude<DkimResult, "neutral">;
  from_domain: string | null;
  /** Some passing signature is aligned (relaxed or strict) with the From domain. */
  aligned: boolean;
  signatures: Array<Omit<SignatureReport, "detail">>;
  warnings: string[];
}

/**
 * Ranking when nothing passes: a cryptographic fail is the strongest evidence; a temperror comes
 * next because a retry might still pass; then permerror. A message whose only signatures are
 * neutral (expired, t= in the future) is permerror overall: RFC 6376 §6.1.1 calls an expired
 * signature PERMFAIL; the per-signature result keeps the finer RFC 8601 "neutral".
 */
const RANK = ["fail", "temperror", "permerror"] as const;

export const MAX_SIGNATURES = 10;

/**
 * `raw` is best given as the octets received; a string is taken as already-decoded UTF-8 text; a
 * WireMessage (toWire) is a message already encoded, e.g. to check its size first.
 */
export async function verifyMessage(raw: string | Uint8Array | WireMessage, deps: VerifyDeps): Promise<VerifyReport> {
  const msg = parseMessage(raw);
  const warnings: string[] = [];
  if (msg.normalized) warnings.push("bare LF line endings were converted to CRLF before verification");
  const from = extractFromDomain(msg.headers);
  const fromCount = msg.headers.filter((h) => h.key === "from").length;
  if (fromCount > 1) warnings.push(`${fromCount} From headers: the message is ambiguous and DMARC cannot apply (RFC 7489 §6.6.1)`);
  else if (from.domain === null) warnings.push(`From domain unavailable: ${from.reason}`);

  const all = msg.headers.filter((h) => h.key === "dkim-signature");
  // Each signature costs a DNS query and a public-key operation: cap them so a message stuffed
  // with signatures cannot turn verification into a DNS amplifier (RFC 6376 §8.4).
  const fields = all.slice(0, MAX_SIGNATURES);
  if (all.length > MAX_SIGNATURES) warnings.push(`${all.length} DKIM-Signature fields; only the first ${MAX_SIGNATURES} were verified`);
  if (fields.length === 0) return { result: "none", from_domain: from.domain, aligned: false, signatures: [], warnings };

  // Per message: each body hash is computed once and shared (docs/decisions.md D50); each key at
  // most once per message, or once per cache (D53).
  const bodies = new BodyHashes(msg.bodyBytes);
  const keys = deps.keyCache ?? new DkimKeyCache(MAX_SIGNATURES);
  // Each signature is independent (§6.1): a failure of one never affects another.
  const reports = await Promise.all(fields.map((f) => verifyOneSignature(f, msg, deps.resolver, deps.now, bodies, keys)));

  const orgCache = new Map<string, Promise<string | null>>();
  const org = (d: string) => {
    let p = orgCache.get(d);
    if (!p) {
      p = deps.orgDomain(d).catch(() => null);
      orgCache.set(d, p);
    }
    return p;
  };
  for (const r of reports) {
    if (r.domain === null || from.domain === null) continue;
    if (r.domain === from.domain) r.alignment = "strict";
    else {
      const [a, b] = await Promise.all([org(r.domain), org(from.domain)]);
      if (a !== null && a === b) r.alignment = "relaxed";
    }
    // RFC 6376 §3.6.1: mail signed with a testing-mode key (t=y) is treated as unsigned, so it never
    // counts as an aligned DKIM pass for DMARC; `alignment` still says how d= relates to From.
    r.aligned = r.alignment !== "none" && !r.testing;
  }

  for (const r of reports) warnings.push(...signatureWarnings(r, fromCount));
  const passing = reports.filter((r) => r.result === "pass");
  const result = passing.length > 0 ? "pass" : (RANK.find((x) => reports.some((r) => r.result === x)) ?? "permerror");
  return {
    result,
    from_domain: from.domain,
    aligned: passing.some((r) => r.aligned),
    signatures: reports.map(({ detail: _detail, ...rest }) => rest),
    warnings: [...new Set(warnings)],
  };
}

function signatureWarnings(r: SignatureReport, fromCount: number): string[] {
  const id = `d=${r.domain ?? "?"} s=${r.selector ?? "?"}`;
  const out: string[] = [];
  const d = r.detail;
  if (d.sig === null) return out;
  if (d.unsignedBodyBytes !== null) {
    // §8.2: content appended after l= octets still verifies.
    out.push(`${id}: l= leaves ${d.unsignedBodyBytes} bytes of the body unsigned; content can be appended without breaking the signature (RFC 6376 §8.2)`);
  }
  if (d.fromSignedCount === 0) out.push(`${id}: From is not signed (RFC 6376 §5.4)`);
  else if (d.fromSignedCount <= fromCount) {
    // §5.4.2 / §8.15: listing From once more than it occurs stops a second From being added.
    out.push(`${id}: From is not over-signed; a second From header could be added without breaking the signature`);
  }
  if (d.sig.hash === "sha1") out.push(`${id}: rsa-sha1 must not be used (RFC 8301 §3.1)`);
  if (r.key?.testing) out.push(`${id}: the key is in testing mode (t=y); receivers treat the mail as unsigned`);
  if (d.keyBits !== null && r.key?.type === "rsa" && d.keyBits >= 1024 && d.keyBits < 2048) {
    out.push(`${id}: weak ${d.keyBits}-bit RSA key; use 2048 bits (RFC 8301 §3.2)`);
  }
  return out;
}
