// Result shapes of the static SPF analysis (analyzeSpf). No I/O here.
import type { Finding } from "../types";
import type { ParsedSpf } from "./types";

export type SpfStatus = "pass-able" | "permerror" | "temperror" | "none";

export interface SpfTermInfo {
  term: string;
  position: number;
  /** DNS-querying terms this term costs, including everything under an include/redirect (RFC 7208 §4.6.4). */
  lookups: number;
  /** Void lookups under this term, for the worse address family. */
  voidLookups: number;
  /** Void lookups under this term as an IPv4 and as an IPv6 sender meets them (RFC 7208 §4.6.4). */
  voidLookupsByFamily: { ipv4: number; ipv6: number };
  /** Depends on %{i}, %{s}, ... so it cannot be resolved offline; counted as 1 lookup. */
  dynamic: boolean;
  /** The analyzed target record of include: / redirect=. */
  child: SpfNode | null;
  note: string | null;
}

export interface SpfNode {
  domain: string;
  via: "root" | "include" | "redirect";
  record: string | null;
  recordsFound: string[];
  /** TXT records at the name that are not SPF (e.g. a leftover spf2.0 Sender ID record). */
  otherTxt: string[];
  parsed: ParsedSpf | null;
  terms: SpfTermInfo[];
  /** Lookups of this record's terms, recursively. */
  lookups: number;
  error: string | null;
}

export interface SpfNetwork {
  /** Network in CIDR form with host bits cleared, e.g. "192.0.2.0/24" or "2001:db8::/32". */
  cidr: string;
  version: 4 | 6;
  /** Domain whose record authorises it, and the term ("ip4:…", "a", "mx:…"). */
  domain: string;
  term: string;
}

export interface SpfDynamicPart {
  domain: string;
  term: string;
}

export interface SpfAnalysis {
  domain: string;
  record: string | null;
  recordsFound: string[];
  lookups: { total: number; limit: number; byTerm: SpfTermInfo[]; truncated: boolean };
  /** Void lookups of the worse address family (the larger of voidLookupsByFamily). */
  voidLookups: number;
  /** Void lookups as an IPv4 and as an IPv6 sender meets them (RFC 7208 §4.6.4): an "a" term is
   *  void for IPv6 senders when the name has A but no AAAA records. */
  voidLookupsByFamily: { ipv4: number; ipv6: number };
  tree: SpfNode | null;
  networks: SpfNetwork[];
  dynamic: SpfDynamicPart[];
  status: SpfStatus;
  statusReason: string;
  /** The first DNS step that failed transiently, when status is temperror. */
  temperror: { at: string; reason: string } | null;
  findings: Finding[];
  /** A corrected root record when every change is mechanical; null when nothing to change or not mechanical. */
  fix: string | null;
}
