// TLSA records for SMTP (RFC 6698 §2.1 fields, RFC 7672 §3.1 usages): which records a sending MTA can use. No I/O.
import type { TlsaRecord } from "../dns/types";

/** RFC 6698 §2.1.3: the digest length each matching type implies (0: the whole selected data). */
const DIGEST_OCTETS: Record<number, number> = { 1: 32, 2: 64 };
const USAGE_NAMES: Record<number, string> = { 0: "PKIX-TA", 1: "PKIX-EE", 2: "DANE-TA", 3: "DANE-EE" };

export const usageName = (u: number): string => USAGE_NAMES[u] ?? `usage ${u}`;

/** The record in presentation form, "3 1 1 <hex>" (RFC 6698 §2.2). */
export const tlsaText = (r: TlsaRecord): string => `${r.usage} ${r.selector} ${r.matchingType} ${r.data}`;

/**
 * Why a sending MTA cannot use this record, or null when it can. RFC 7672 §3.1.3: PKIX-TA(0) and
 * PKIX-EE(1) are not for SMTP (no shared set of trusted CAs), so only DANE-TA(2) and DANE-EE(3) count;
 * an unknown selector or matching type, or association data of the wrong length, is unusable too.
 */
export function unusableReason(r: TlsaRecord): string | null {
  if (r.usage === 0 || r.usage === 1) return `${usageName(r.usage)} (${r.usage}) is not usable for SMTP (RFC 7672 §3.1.3)`;
  if (r.usage !== 2 && r.usage !== 3) return `certificate usage ${r.usage} is not defined (RFC 6698 §2.1.1)`;
  if (r.selector !== 0 && r.selector !== 1) return `selector ${r.selector} is not defined (RFC 6698 §2.1.2)`;
  const octets = r.data.length / 2;
  if (r.matchingType === 0) return octets > 0 ? null : "the association data is empty (RFC 6698 §2.1.4)";
  const want = DIGEST_OCTETS[r.matchingType];
  if (want === undefined) return `matching type ${r.matchingType} is not defined (RFC 6698 §2.1.3)`;
  return octets === want ? null : `matching type ${r.matchingType} needs ${want} octets of digest, not ${octets} (RFC 6698 §2.1.3)`;
}
