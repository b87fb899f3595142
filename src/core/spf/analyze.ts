// Static SPF analysis: walks a domain's record tree, counts lookups, flattens networks, emits findings. I/O only via the Resolver.
import type { Resolver } from "../dns/types";
import type { Finding } from "../types";
import type { SpfAnalysis, SpfNode, SpfTermInfo } from "./analysis-types";
import { addStaticNetwork, addVoid, resolveAddressTerm, type VoidCounts, type WalkContext, worstVoids } from "./analyze-terms";
import { policyFindings, rootFindings } from "./analyze-rules";
import { fetchSpf, type SpfLookup } from "./discover";
import { expandMacros, hasMacro, macroLetters } from "./macro";
import { parseSpf } from "./parse";
import { LOOKUP_TERMS, MAX_LOOKUPS, MAX_VOID_LOOKUPS, type Mechanism, type Modifier } from "./types";

export type { SpfAnalysis, SpfNode, SpfTermInfo, SpfNetwork, SpfStatus, SpfDynamicPart } from "./analysis-types";

/** Beyond this many lookups the result is permerror anyway; stop following includes to bound the work. */
const FOLLOW_LIMIT = 2 * MAX_LOOKUPS;

export async function analyzeSpf(domain: string, resolver: Resolver): Promise<SpfAnalysis> {
  const d = domain.toLowerCase().replace(/\.$/, "");
  const ctx: WalkContext = {
    resolver,
    lookups: 0,
    voids: { ipv4: 0, ipv6: 0 },
    findings: [],
    networks: [],
    dynamic: [],
    permerrors: [],
    temperror: null,
    includeCounts: new Map(),
    truncated: false,
  };
  // The deprecated SPF RR type check needs no record: run it alongside the walk. Nothing waits on it to
  // send more queries, so it may wait for a connection behind the walk's (docs/decisions.md D63).
  const rr99 = resolver.query(d, "SPF", { priority: "leaf" });
  const tree = await walk(d, "root", [], ctx);
  const findings: Finding[] = [...(await rootFindings(d, tree, rr99)), ...ctx.findings];

  if (ctx.lookups > MAX_LOOKUPS) {
    ctx.permerrors.push(`${ctx.lookups} DNS-querying terms`);
    findings.push({
      rule: "spf.lookup-limit",
      severity: "High",
      description: `The record needs ${ctx.truncated ? "at least " : ""}${ctx.lookups} DNS-querying terms (include, a, mx, ptr, exists, redirect), over the limit of ${MAX_LOOKUPS}: receivers return permerror (RFC 7208 §4.6.4).`,
      fix: null,
    });
  } else if (ctx.lookups >= 8) {
    findings.push({
      rule: "spf.lookup-nearly-spent",
      severity: "Low",
      description: `${ctx.lookups} of ${MAX_LOOKUPS} DNS-querying terms are used (RFC 7208 §4.6.4); one more provider include may push the record into permerror. Replace a/mx with ip4/ip6 where the addresses are stable, or drop unused includes.`,
      fix: null,
    });
  }
  findings.push(...voidFindings(ctx));
  const policy = policyFindings(tree, ctx.includeCounts);
  findings.push(...policy.findings);

  let status: SpfAnalysis["status"] = "pass-able";
  let statusReason = "the record is valid and can produce pass";
  // A transient failure anywhere means the real result is unknown: never report permerror/none then.
  if (ctx.temperror) {
    status = "temperror";
    statusReason = `DNS temperror at ${ctx.temperror.at}: ${ctx.temperror.reason}`;
  } else if (ctx.permerrors.length > 0) {
    status = "permerror";
    statusReason = ctx.permerrors.join("; ");
  } else if (tree.record === null && tree.recordsFound.length === 0) {
    status = "none";
    statusReason = `no SPF record at ${d}`;
  }
  if (ctx.temperror) {
    findings.push({
      rule: "spf.temperror",
      severity: "Medium",
      description: `The analysis is incomplete: ${statusReason}. Receivers would return temperror.`,
      fix: null,
    });
  }
  return {
    domain: d,
    record: tree.record,
    recordsFound: tree.recordsFound,
    lookups: { total: ctx.lookups, limit: MAX_LOOKUPS, byTerm: tree.terms, truncated: ctx.truncated },
    voidLookups: worstVoids(ctx.voids),
    voidLookupsByFamily: { ...ctx.voids },
    tree,
    networks: ctx.networks,
    dynamic: ctx.dynamic,
    status,
    statusReason,
    temperror: ctx.temperror,
    findings,
    fix: policy.fix,
  };
}

async function walk(domain: string, via: SpfNode["via"], path: string[], ctx: WalkContext): Promise<SpfNode> {
  const node: SpfNode = { domain, via, record: null, recordsFound: [], otherTxt: [], parsed: null, terms: [], lookups: 0, error: null };
  const early = prefetched.get(ctx)?.get(domain);
  prefetched.get(ctx)?.delete(domain);
  const found = await (early ?? fetchSpf(domain, ctx.resolver));
  if (found.kind === "temperror") {
    ctx.temperror ??= { at: `TXT ${domain} (${via})`, reason: found.reason };
    node.error = found.reason;
    return node;
  }
  node.otherTxt = found.otherTxt;
  if (found.kind === "none") {
    if (via !== "root") {
      // RFC 7208 §5.2 / §6.1: a missing target record is a permerror for the whole record, not a skip.
      if (found.void) addVoid(ctx);
      const rule = via === "include" ? "spf.include-no-record" : "spf.redirect-no-record";
      node.error = `${via} target ${domain} has no SPF record`;
      ctx.permerrors.push(node.error);
      ctx.findings.push({
        rule,
        severity: "High",
        description: `${via === "include" ? `include:${domain}` : `redirect=${domain}`} points at a domain without an SPF record: receivers return permerror (RFC 7208 ${via === "include" ? "§5.2" : "§6.1"}).`,
        fix: null,
      });
    }
    return node;
  }
  if (found.kind === "multiple") {
    node.recordsFound = found.records;
    node.error = `${found.records.length} SPF records at ${domain}`;
    ctx.permerrors.push(node.error);
    ctx.findings.push({
      rule: "spf.multiple-records",
      severity: "High",
      description: `${domain} publishes ${found.records.length} v=spf1 records; receivers return permerror (RFC 7208 §4.5). Merge them into one.`,
      fix: null,
    });
    return node;
  }
  node.record = found.record;
  node.recordsFound = [found.record];
  const parsed = parseSpf(found.record);
  node.parsed = parsed;
  for (const e of parsed.errors) {
    ctx.permerrors.push(`syntax error in ${domain}`);
    const glued = e.message.includes("glued");
    ctx.findings.push({
      rule: glued ? "spf.syntax.glued-term" : "spf.syntax",
      severity: "High",
      description: `Syntax error in the SPF record of ${domain} at character ${e.position}${e.term ? ` ("${e.term}")` : ""}: ${e.message}. Receivers return permerror (RFC 7208 §4.6).`,
      fix: glued ? `${found.record.slice(0, e.position)} ${found.record.slice(e.position)}` : null,
    });
  }
  const evaluated = evaluatedTerms(parsed); // RFC 7208 §6.1: redirect= is ignored when "all" is present
  prefetchTargets(evaluated, [...path, domain], ctx);
  for (const term of evaluated) node.terms.push(await analyzeTerm(term, domain, [...path, domain], ctx));
  node.lookups = node.terms.reduce((n, t) => n + t.lookups, 0);
  return node;
}

/** Records of include/redirect targets fetched ahead of the walk, consumed once each by walk(). */
const prefetched = new WeakMap<WalkContext, Map<string, Promise<SpfLookup>>>();
const prefetchCount = new WeakMap<WalkContext, number>();

/** The terms check_host() evaluates: mechanisms up to "all", then redirect= only without "all" (RFC 7208 §6.1). */
function evaluatedTerms(parsed: ReturnType<typeof parseSpf>): (Mechanism | Modifier)[] {
  const out: (Mechanism | Modifier)[] = parsed.mechanisms.filter((m) => !parsed.ignoredAfterAll.includes(m));
  if (parsed.redirect && !parsed.mechanisms.some((m) => m.name === "all")) out.push(parsed.redirect);
  return out;
}

/** Fetches literal include/redirect targets ahead of the walk, and their targets as each answer
 *  arrives, so the whole tree costs one round trip per level instead of one per record. The walk
 *  still consumes them in order, so counting, truncation and findings are unchanged; loop and macro
 *  targets are left to the walk, and at most FOLLOW_LIMIT records are fetched ahead. */
function prefetchTargets(terms: readonly (Mechanism | Modifier)[], path: string[], ctx: WalkContext): void {
  let map = prefetched.get(ctx);
  if (!map) {
    map = new Map();
    prefetched.set(ctx, map);
  }
  let budget = FOLLOW_LIMIT - ctx.lookups;
  for (const t of terms) {
    if (!LOOKUP_TERMS.has(t.name)) continue;
    if (--budget < 0) break;
    if (t.name !== "include" && t.name !== "redirect") continue;
    const spec = t.kind === "modifier" ? t.value : t.domainSpec;
    if (spec === null || hasMacro(spec)) continue;
    const target = spec.toLowerCase().replace(/\.$/, "");
    const count = prefetchCount.get(ctx) ?? 0;
    if (path.includes(target) || map.has(target) || count >= FOLLOW_LIMIT) continue;
    prefetchCount.set(ctx, count + 1);
    map.set(
      target,
      fetchSpf(target, ctx.resolver).then((found) => {
        if (found.kind === "record") prefetchTargets(evaluatedTerms(parseSpf(found.record)), [...path, target], ctx);
        return found;
      }),
    );
  }
}

async function analyzeTerm(term: Mechanism | Modifier, domain: string, path: string[], ctx: WalkContext): Promise<SpfTermInfo> {
  const info: SpfTermInfo = {
    term: term.raw,
    position: term.position,
    lookups: 0,
    voidLookups: 0,
    voidLookupsByFamily: { ipv4: 0, ipv6: 0 },
    dynamic: false,
    child: null,
    note: null,
  };
  if (!LOOKUP_TERMS.has(term.name)) {
    if (term.kind === "mechanism") addStaticNetwork(term, domain, ctx);
    return info;
  }
  ctx.lookups++;
  info.lookups = 1;
  const spec = term.kind === "modifier" ? term.value : term.domainSpec;
  // Only %{d} is known offline; anything else (%{i}, %{s}, ...) depends on the message (RFC 7208 §7).
  if (spec !== null && hasMacro(spec) && [...macroLetters(spec)].some((l) => l !== "d")) {
    info.dynamic = true;
    info.note = "depends on the connecting IP or sender; not expanded";
    ctx.dynamic.push({ domain, term: term.raw });
    return info;
  }
  const expanded = spec === null ? domain : expandMacros(spec, { sender: `postmaster@${domain}`, ip: "0.0.0.0", helo: domain, domain });
  const target = typeof expanded === "string" ? expanded : expanded.ok ? expanded.value.toLowerCase().replace(/\.$/, "") : null;
  if (target === null) return info; // syntax errors are already reported by the parser
  if (term.name === "include" || term.name === "redirect") {
    if (term.name === "include") ctx.includeCounts.set(target, (ctx.includeCounts.get(target) ?? 0) + 1);
    if (path.includes(target)) {
      ctx.permerrors.push(`loop via ${term.raw}`);
      ctx.findings.push({
        rule: "spf.loop",
        severity: "High",
        description: `${term.raw} in ${domain} loops back to ${target} (${[...path, target].join(" → ")}); receivers hit the lookup limit and return permerror (RFC 7208 §4.6.4).`,
        fix: null,
      });
      info.note = "loop";
      return info;
    }
    if (ctx.lookups > FOLLOW_LIMIT) {
      ctx.truncated = true;
      info.note = "not followed: lookup limit long exceeded";
      return info;
    }
    const before = { ...ctx.voids };
    info.child = await walk(target, term.name, path, ctx);
    info.lookups += info.child.lookups;
    info.voidLookupsByFamily = familyVoidsSince(before, ctx.voids);
    info.voidLookups = worstVoids(info.voidLookupsByFamily);
    return info;
  }
  const before = { ...ctx.voids };
  if (term.kind === "mechanism") await resolveAddressTerm(term, target, domain, ctx);
  info.voidLookupsByFamily = familyVoidsSince(before, ctx.voids);
  info.voidLookups = worstVoids(info.voidLookupsByFamily);
  return info;
}

const familyVoidsSince = (before: VoidCounts, now: VoidCounts): VoidCounts => ({ ipv4: now.ipv4 - before.ipv4, ipv6: now.ipv6 - before.ipv6 });

/** The void-lookup limit per address family (RFC 7208 §4.6.4): "a" asks for A or AAAA depending on
 *  the client, so a record can exceed the limit for IPv6 senders only. */
function voidFindings(ctx: WalkContext): Finding[] {
  const { ipv4, ipv6 } = ctx.voids;
  const over = (["ipv4", "ipv6"] as const).filter((f) => ctx.voids[f] > MAX_VOID_LOOKUPS);
  const label = { ipv4: "IPv4", ipv6: "IPv6" } as const;
  if (over.length > 0) {
    const who = over.length === 2 ? "every sender" : `every ${label[over[0] ?? "ipv4"]} sender`;
    const counts = over.length === 2 && ipv4 === ipv6 ? `${ipv4}` : over.map((f) => `${ctx.voids[f]} for ${label[f]} senders`).join(", ");
    ctx.permerrors.push(`${counts} void lookups`);
    return [
      {
        rule: "spf.void-lookup-limit",
        severity: "High",
        description: `${counts} lookups return no answer (NXDOMAIN or NODATA), over the limit of ${MAX_VOID_LOOKUPS}: receivers return permerror for ${who} (RFC 7208 §4.6.4).${over.length === 1 && over[0] === "ipv6" ? ' An "a" term whose name has A but no AAAA records is void for IPv6 senders; publish AAAA records or use ip4: terms.' : ""}`,
        fix: null,
      },
    ];
  }
  // Voids for IPv6 senders alone come from "a" names with A but no AAAA records, which is common and
  // harmless below the limit; they are worth a warning only once one more would reach permerror.
  if (ipv4 === 0 && ipv6 < MAX_VOID_LOOKUPS) return [];
  const split = ipv4 === ipv6 ? `${ipv4} lookup(s)` : `${ipv4} lookup(s) for IPv4 senders and ${ipv6} for IPv6 senders`;
  return [
    {
      rule: "spf.void-lookup",
      severity: "Low",
      description: `${split} return no answer (NXDOMAIN or NODATA); more than ${MAX_VOID_LOOKUPS} is a permerror (RFC 7208 §4.6.4). Remove terms that point at names without records${ipv6 > ipv4 ? ', and publish AAAA records for names of "a" terms (or use ip4: terms)' : ""}.`,
      fix: null,
    },
  ];
}
