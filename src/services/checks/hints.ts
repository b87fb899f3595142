// MX hosts and SPF include targets for DKIM provider inference; the resolver caches them for the posture run. I/O via Resolver.
import type { Resolver } from "../../core/dns/types";
import { isSpfRecord, parseSpf } from "../../core/spf/parse";

export interface InventoryHints {
  mxHosts: string[];
  spfIncludes: string[];
}

export async function gatherHints(domain: string, resolver: Resolver): Promise<InventoryHints> {
  const [mx, txt] = await Promise.all([resolver.query(domain, "MX"), resolver.query(domain, "TXT")]);
  const mxHosts = mx.kind === "records" ? mx.records.map((r) => r.exchange).filter((h) => h !== "") : [];
  const spf = txt.kind === "records" ? txt.records.filter(isSpfRecord) : [];
  // RFC 7208 §4.5: more than one SPF record is a permerror; take no hints from it.
  const parsed = spf.length === 1 && spf[0] !== undefined ? parseSpf(spf[0]) : null;
  const spfIncludes = parsed ? parsed.mechanisms.filter((m) => m.name === "include").flatMap((m) => (m.domainSpec ? [m.domainSpec.toLowerCase()] : [])) : [];
  return { mxHosts, spfIncludes };
}
