// SPF record discovery: TXT lookup and record selection (RFC 7208 §4.4, §4.5). I/O only via the Resolver.
import type { Resolver } from "../dns/types";
import { isSpfRecord } from "./parse";

export type SpfLookup =
  /** Exactly one v=spf1 record. `otherTxt` holds the rest of the TXT RRset. */
  | { kind: "record"; record: string; otherTxt: string[] }
  /** More than one v=spf1 record: permerror (RFC 7208 §4.5). */
  | { kind: "multiple"; records: string[]; otherTxt: string[] }
  /** NXDOMAIN, NODATA or no v=spf1 record: none (RFC 7208 §4.5). `void` marks NXDOMAIN/NODATA. */
  | { kind: "none"; void: boolean; otherTxt: string[] }
  | { kind: "temperror"; reason: string };

export async function fetchSpf(domain: string, resolver: Resolver): Promise<SpfLookup> {
  const res = await resolver.query(domain, "TXT");
  if (res.kind === "temperror") return { kind: "temperror", reason: `TXT ${domain}: ${res.reason}` };
  if (res.kind !== "records") return { kind: "none", void: true, otherTxt: [] };
  const spf = res.records.filter(isSpfRecord);
  const otherTxt = res.records.filter((r) => !isSpfRecord(r));
  if (spf.length === 0) return { kind: "none", void: false, otherTxt };
  if (spf.length > 1) return { kind: "multiple", records: spf, otherTxt };
  return { kind: "record", record: spf[0] ?? "", otherTxt };
}

/** RFC 7208 §4.3: check_host() returns none for a malformed <domain> (not a multi-label FQDN). */
export function isValidDomain(domain: string): boolean {
  const d = domain.replace(/\.$/, "");
  if (d.length === 0 || d.length > 253 || !d.includes(".")) return false;
  return d.split(".").every((l) => l.length > 0 && l.length <= 63);
}
