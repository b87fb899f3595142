// Static resolution of address terms (ip4/ip6/a/mx/ptr/exists) for the SPF analysis. I/O only via the Resolver.
import type { Resolver } from "../dns/types";
import type { Finding } from "../types";
import type { SpfDynamicPart, SpfNetwork } from "./analysis-types";
import { networkOf, parseIp } from "./ip";
import type { Mechanism } from "./types";

export interface WalkContext {
  resolver: Resolver;
  lookups: number;
  voids: number;
  findings: Finding[];
  networks: SpfNetwork[];
  dynamic: SpfDynamicPart[];
  permerrors: string[];
  temperror: { at: string; reason: string } | null;
  includeCounts: Map<string, number>;
  truncated: boolean;
}

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

/** A and AAAA of a name; returns whether both were absent, or null after a temperror. */
async function addresses(name: string, mech: Mechanism, domain: string, ctx: WalkContext): Promise<boolean | null> {
  let empty = true;
  for (const type of ["A", "AAAA"] as const) {
    const res = await ctx.resolver.query(name, type);
    if (res.kind === "temperror") {
      ctx.temperror ??= { at: `${type} ${name} (${mech.raw} in ${domain})`, reason: res.reason };
      return null;
    }
    if (res.kind === "records") {
      empty = false;
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
    // An "a" term is void when the name has neither A nor AAAA (checkdmarc counts it the same way).
    if ((await addresses(target, mech, domain, ctx)) === true) ctx.voids++;
    return;
  }
  if (mech.name === "exists") {
    const res = await ctx.resolver.query(target, "A");
    if (res.kind === "temperror") ctx.temperror ??= { at: `A ${target} (${mech.raw} in ${domain})`, reason: res.reason };
    else if (res.kind !== "records") ctx.voids++;
    return;
  }
  if (mech.name !== "mx") return;
  const res = await ctx.resolver.query(target, "MX");
  if (res.kind === "temperror") {
    ctx.temperror ??= { at: `MX ${target} (${mech.raw} in ${domain})`, reason: res.reason };
    return;
  }
  if (res.kind !== "records") {
    ctx.voids++;
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
    if (empty) missing.push(h.exchange);
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
