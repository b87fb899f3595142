// Per-domain facts an address check needs (MX, provider, SPF all-qualifier, DMARC policy, policy strength). I/O via Resolver only.
import type { Resolver } from "../../core/dns/types";
import { discoverPolicy } from "../../core/dmarc/discover";
import { analyzeMx } from "../../core/mx/analyze";
import { fetchSpf } from "../../core/spf/discover";
import { parseSpf } from "../../core/spf/parse";
import { providerFromMx, type Provider } from "./tables";

export type MxStatus = "present" | "null_mx" | "none" | "temperror";
export type PolicyStrength = "strong" | "moderate" | "weak" | "none" | "unknown";
/** "-all", "~all", "?all", "+all"; "none" = no SPF record; "no_all" = a record without all (neutral default). */
export type SpfAll = "-all" | "~all" | "?all" | "+all" | "no_all" | "none" | "invalid" | "temperror";
export type DmarcState = "reject" | "quarantine" | "none" | "missing" | "temperror";

export interface DomainFacts {
  domain: string;
  nxdomain: boolean;
  mx: { status: MxStatus; hosts: { host: string; preference: number; status: string }[] };
  /** Every MX host failed to resolve definitively: mail cannot be delivered. */
  mxUnreachable: boolean;
  provider: Provider | null;
  spf: SpfAll;
  dmarc: DmarcState;
  /** DMARC t=y (testing): receivers apply one step less (RFC 9989 §5.3). */
  dmarcTesting: boolean;
  strength: PolicyStrength;
  /** No resolver answered anything for this domain. */
  unreachable: boolean;
}

async function spfAll(domain: string, resolver: Resolver): Promise<SpfAll> {
  // The root record decides; one redirect= is followed, since it supplies the all of the target (RFC 7208 §6.1).
  let name = domain;
  for (let hop = 0; hop < 2; hop++) {
    const found = await fetchSpf(name, resolver);
    if (found.kind === "temperror") return "temperror";
    if (found.kind === "none") return hop === 0 ? "none" : "invalid";
    if (found.kind === "multiple") return "invalid"; // RFC 7208 §4.5: permerror
    const parsed = parseSpf(found.record);
    if (parsed.errors.length > 0) return "invalid";
    const all = parsed.mechanisms.find((m) => m.name === "all");
    if (all) return `${all.qualifier}all` as SpfAll;
    if (!parsed.redirect || parsed.redirect.value.includes("%")) return "no_all";
    name = parsed.redirect.value.toLowerCase();
  }
  return "no_all";
}

async function dmarcState(domain: string, resolver: Resolver): Promise<{ state: DmarcState; testing: boolean }> {
  const d = await discoverPolicy(domain, resolver);
  if (d.status === "temperror") return { state: "temperror", testing: false };
  if (d.status === "none" || !d.parsed || !d.parsed.policyApplies) return { state: "missing", testing: false };
  // RFC 9989 §4.10.1: an inherited record applies its sp (np for non-existent names, not relevant to a mailbox domain).
  return { state: d.inherited ? d.parsed.effective.sp : d.parsed.effective.p, testing: d.parsed.t };
}

/** strong: enforcing DMARC and a failing SPF all; moderate: one of the two; weak: records that do not protect; none: nothing published. */
export function policyStrength(spf: SpfAll, dmarc: DmarcState, testing: boolean): PolicyStrength {
  if (spf === "temperror" || dmarc === "temperror") return "unknown";
  const enforcing = (dmarc === "reject" || dmarc === "quarantine") && !testing;
  const spfFails = spf === "-all" || spf === "~all";
  if (enforcing && spfFails) return "strong";
  if (enforcing || (spfFails && dmarc !== "missing")) return "moderate";
  if (spf === "none" && dmarc === "missing") return "none";
  return "weak";
}

export async function domainFacts(domain: string, resolver: Resolver): Promise<DomainFacts> {
  const [mx, spf, dmarc] = await Promise.all([analyzeMx(domain, resolver), spfAll(domain, resolver), dmarcState(domain, resolver)]);
  const status: MxStatus = mx.status === "temperror" ? "temperror" : mx.nullMx ? "null_mx" : mx.records.length === 0 ? "none" : "present";
  const hosts = mx.hosts.map((h) => ({ host: h.host, preference: h.preference, status: h.status }));
  return {
    domain,
    nxdomain: mx.nxdomain,
    mx: { status, hosts },
    mxUnreachable: hosts.length > 0 && hosts.every((h) => h.status === "unresolvable" || h.status === "ip-literal"),
    provider: providerFromMx(mx.records.map((m) => m.exchange)),
    spf: spf,
    dmarc: dmarc.state,
    dmarcTesting: dmarc.testing,
    strength: policyStrength(spf, dmarc.state, dmarc.testing),
    unreachable: status === "temperror" && spf === "temperror" && dmarc.state === "temperror",
  };
}

/** One lookup per distinct domain for the lifetime of the map (one request); callers share the promise. */
export class DomainFactsCache {
  private readonly pending = new Map<string, Promise<DomainFacts>>();
  constructor(private readonly resolver: Resolver) {}
  get(domain: string): Promise<DomainFacts> {
    let p = this.pending.get(domain);
    if (!p) {
      p = domainFacts(domain, this.resolver);
      this.pending.set(domain, p);
    }
    return p;
  }
}
