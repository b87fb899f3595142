// Static resolution of address terms (ip4/ip6/a/mx/ptr/exists) for the SPF analysis. I/O only via the Resolver.
import type { Resolver } from "../dns/types";
import type { Finding } from "../types";
import type { SpfDynamicPart, SpfNetwork } from "./analysis-types";
import { networkOf, parseIp } from "./ip";
import type { Mechanism } from "./types";

export interface WalkContext {
  resolver: Resolver;
  lookups: number;
  /** Void lookups as an IPv4 and as an IPv6 sender sees them: an "a" term asks only for A or only
   *  for AAAA, so a name with one of the two is void for one family only (RFC 7208 §4.6.4, §5.3). */
  voids: VoidCounts;
  findings: Finding[];
  networks: SpfNetwork[];
  dynamic: SpfDynamicPart[];
  permerrors: string[];
  temperror: { at: string; reason: string } | null;
  includeCounts: Map<string, number>;
  truncated: boolean;
}

export interface VoidCounts {
  ipv4: number;
  ipv6: number;
}

/** Counts a void lookup for one address family, or for both when the query is the same for each
 *  (MX, the A query of exists, the TXT of an include or redirect target). */
export function addVoid(ctx: WalkContext, family?: 4 | 6): void {
  if (family !== 6) ctx.voids.ipv4++;
  if (family !== 4) ctx.voids.ipv6++;
}

/** The worse of the two families, which decides whether some sender hits the limit. */
export const worstVoids = (v: VoidCounts): number => Math.max(v.ipv4, v.ipv6);

function addNetwork(ctx: WalkContext, address: string, mech: Mechanism, domain: string): void {
  const ip = parseIp(address);
  if (!ip) return;
  const prefix = ip.version === 4 ? (mech.cidr4 ?? 32) : (mech.cidr6 ?? 128);
  ctx.networks.push({ cidr: networkOf(ip, prefix), version: ip.version, domain, term: mech.raw });
}

/** ip4/ip6 need no DNS. */
export function addStaticNetwork(mech: Mechanism, domain: string, ctx: WalkContext): void {
  if ((mech.name === "ip4" || mech.name === "ip6") && mech.network) addNetwork(ctx, mech.network, mech, domain);
}

/** A and AAAA of a name; returns which of the two were absent, or null after a temperror. */
async function addresses(name: string, mech: Mechanism, domain: string, ctx: WalkContext): Promise<{ A: boolean; AAAA: boolean } | null> {
  const empty = { A: true, AAAA: true };
  for (const type of ["A", "AAAA"] as const) {
    const res = await ctx.resolver.query(name, type);
    if (res.kind === "temperror") {
      ctx.temperror ??= { at: `${type} ${name} (${mech.raw} in ${domain})`, reason: res.reason };
      return null;
    }
    if (res.kind === "records") {
      empty[type] = false;
      for (const a of res.records) addNetwork(ctx, a, mech, domain);
    }
  }
  return empty;
}

/** Resolves a/mx/exists (ptr cannot be resolved without a client IP) and records networks and void lookups. */
export async function resolveAddressTerm(mech: Mechanism, target: string, domain: string, ctx: WalkContext): Promise<void> {
  if (mech.name === "ptr") {
    ctx.findings.push({
      rule: "spf.ptr",
      severity: "Medium",
      description: `${domain} uses "${mech.raw}": the ptr mechanism SHOULD NOT be used (RFC 7208 §5.5); it is slow, unreliable and some receivers skip it. List the sending addresses with ip4/ip6 instead.`,
      fix: null,
    });
    return;
  }
  if (mech.name === "a") {
    // check_host() asks for A for an IPv4 client and AAAA for an IPv6 one (RFC 7208 §5.3), so a name
    // with only A records is a void lookup for every IPv6 sender (§4.6.4).
    const empty = await addresses(target, mech, domain, ctx);
    if (empty?.A) addVoid(ctx, 4);
    if (empty?.AAAA) addVoid(ctx, 6);
    return;
  }
  if (mech.name === "exists") {
    const res = await ctx.resolver.query(target, "A");
    if (res.kind === "temperror") ctx.temperror ??= { at: `A ${target} (${mech.raw} in ${domain})`, reason: res.reason };
    else if (res.kind !== "records") addVoid(ctx); // an A query for both families (RFC 7208 §5.7)
    return;
  }
  if (mech.name !== "mx") return;
  const res = await ctx.resolver.query(target, "MX");
  if (res.kind === "temperror") {
    ctx.temperror ??= { at: `MX ${target} (${mech.raw} in ${domain})`, reason: res.reason };
    return;
  }
  if (res.kind !== "records") {
    addVoid(ctx);
    return;
  }
  const hosts = res.records.filter((r) => r.exchange !== "");
  if (res.records.length > 10) {
    // RFC 7208 §4.6.4: over 10 MX names is a permerror for the mx term; its address lookups don't count toward 10.
    ctx.permerrors.push(`${mech.raw} has ${res.records.length} MX hosts`);
    ctx.findings.push({
      rule: "spf.mx-too-many-hosts",
      severity: "High",
      description: `"${mech.raw}" in ${domain} resolves to ${res.records.length} MX hosts, over the limit of 10: receivers return permerror (RFC 7208 §4.6.4). Use ip4/ip6 ranges instead.`,
      fix: null,
    });
  }
  const missing: string[] = [];
  for (const h of hosts.slice(0, 10)) {
    const empty = await addresses(h.exchange, mech, domain, ctx);
    if (empty === null) return;
    if (empty.A && empty.AAAA) missing.push(h.exchange);
  }
  if (missing.length > 0) {
    ctx.findings.push({
      rule: "spf.mx-host-no-address",
      severity: "Low",
      description: `MX host(s) ${missing.join(", ")} named by "${mech.raw}" in ${domain} have no A/AAAA records, so they authorise nothing.`,
      fix: null,
    });
  }
}
