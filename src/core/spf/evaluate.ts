// check_host() (RFC 7208 §4): evaluates SPF for a client IP and sender. I/O only via the injected Resolver.
import type { Resolver } from "../dns/types";
import { canonicalName } from "../dns/wire";
import { fetchSpf, isValidDomain } from "./discover";
import { type Ip, inCidr, parseIp, reverseName } from "./ip";
import { expandMacros, macroLetters, type MacroContext, truncateDomain } from "./macro";
import { parseSpf } from "./parse";
import { LOOKUP_TERMS, MAX_LOOKUPS, MAX_VOID_LOOKUPS, type Mechanism, QUALIFIER_RESULT, type SpfResult } from "./types";

export interface SpfEvaluation {
  result: SpfResult;
  /** The domain whose record decided the result (an include or redirect target, or the start domain). */
  domain: string;
  /** The matching term, e.g. "-all" or "include:_spf.example.net"; null for default/none/errors. */
  mechanism: string | null;
  reason: string;
  lookups: number;
  voidLookups: number;
  /** RFC 7208 §6.2 exp= text, only for a fail result. */
  explanation: string | null;
  /** Every record check_host() evaluated, in the order it reached them (the start, then include and redirect targets). */
  path: SpfPathStep[];
}

/** One check_host() run on one domain (RFC 7208 §4): the start domain or an include/redirect target. */
export interface SpfPathStep {
  domain: string;
  /** The SPF record evaluated; null when there was none or it could not be fetched. */
  record: string | null;
  /** The term that led here ("include:..." or "redirect=..."); null for the start domain. */
  via: string | null;
  /** The term of this record that decided its result: the matching mechanism, the redirect=, the term an
   *  error stopped at (permerror, temperror), or null (default neutral, no record, a record that failed to fetch or parse). */
  term: string | null;
  /** check_host()'s result for this domain (for an include target, before §5.2 maps it). */
  result: SpfResult;
}

export interface SpfEvalOptions {
  helo?: string;
  receiver?: string;
  timestamp?: number;
}

/** Internal early exit: permerror/temperror end check_host() at once (RFC 7208 §4.6, §5). */
class Abort {
  constructor(
    readonly result: "permerror" | "temperror",
    readonly reason: string,
  ) {}
}

interface State {
  ip: Ip;
  resolver: Resolver;
  base: Omit<MacroContext, "domain">;
  lookups: number;
  voids: number;
  /** PTR names that validate the client IP (RFC 7208 §5.5), looked up once for %{p}. */
  validated?: string[];
  path: SpfPathStep[];
}

interface Outcome {
  result: SpfResult;
  domain: string;
  mechanism: string | null;
  reason: string;
  explanation: string | null;
}

export async function evaluateSpf(ip: string, domain: string, sender: string, resolver: Resolver, opts: SpfEvalOptions = {}): Promise<SpfEvaluation> {
  const parsedIp = parseIp(ip);
  const d = domain.toLowerCase().replace(/\.$/, "");
  // RFC 7208 §4.3: an empty local-part becomes "postmaster"; a bare domain is postmaster@domain (§2.4).
  const fullSender = sender.includes("@") ? (sender.startsWith("@") ? `postmaster${sender}` : sender) : `postmaster@${sender || d}`;
  const state: State = {
    ip: parsedIp ?? { version: 4, bytes: new Uint8Array(4) },
    resolver,
    lookups: 0,
    voids: 0,
    path: [],
    base: { sender: fullSender, ip, helo: opts.helo ?? d, receiver: opts.receiver, timestamp: opts.timestamp },
  };
  const done = (o: Outcome): SpfEvaluation => ({ ...o, lookups: state.lookups, voidLookups: state.voids, path: state.path });
  if (!parsedIp) return done({ result: "permerror", domain: d, mechanism: null, reason: `"${ip}" is not an IP address`, explanation: null });
  try {
    return done(await checkHost(d, state, null));
  } catch (e) {
    if (e instanceof Abort) return done({ result: e.result, domain: d, mechanism: null, reason: e.reason, explanation: null });
    throw e;
  }
}

/** check_host() on one domain, recording its step in the path; an abort marks every unfinished step with its result. */
async function checkHost(domain: string, s: State, via: string | null): Promise<Outcome> {
  const step: SpfPathStep = { domain, record: null, via, term: null, result: "none" };
  s.path.push(step);
  try {
    const out = await checkRecord(domain, s, step);
    step.result = out.result;
    return out;
  } catch (e) {
    if (e instanceof Abort) step.result = e.result;
    throw e;
  }
}

async function checkRecord(domain: string, s: State, step: SpfPathStep): Promise<Outcome> {
  const none = (reason: string): Outcome => ({ result: "none", domain, mechanism: null, reason, explanation: null });
  if (!isValidDomain(domain)) return none(`"${domain}" is not a valid domain (RFC 7208 §4.3)`);
  const found = await fetchSpf(domain, s.resolver);
  if (found.kind === "temperror") throw new Abort("temperror", found.reason);
  if (found.kind === "none") return none(`no SPF record at ${domain}`);
  if (found.kind === "multiple") throw new Abort("permerror", `${found.records.length} SPF records at ${domain} (RFC 7208 §4.5)`);
  step.record = found.record;
  const rec = parseSpf(found.record);
  const firstError = rec.errors[0];
  if (firstError) throw new Abort("permerror", `syntax error in ${domain} at ${firstError.position}: ${firstError.message}`);

  for (const mech of rec.mechanisms) {
    step.term = mech.raw; // stays set if this term ends the evaluation with an error
    if (LOOKUP_TERMS.has(mech.name)) countLookup(s, mech.raw);
    if (await matches(mech, domain, s)) {
      const result = QUALIFIER_RESULT[mech.qualifier];
      const explanation = result === "fail" && rec.exp ? await explain(rec.exp.value, domain, s) : null;
      return { result, domain, mechanism: mech.raw, reason: `matched ${mech.raw} in ${domain}`, explanation };
    }
  }
  step.term = null;
  // RFC 7208 §6.1: redirect applies only when no mechanism matched and the record has no "all".
  if (rec.redirect && !rec.mechanisms.some((m) => m.name === "all")) {
    step.term = rec.redirect.raw;
    countLookup(s, rec.redirect.raw);
    const target = await expand(rec.redirect.value, domain, s);
    const child = await checkHost(target, s, rec.redirect.raw);
    if (child.result === "none") throw new Abort("permerror", `redirect target ${target} has no SPF record (RFC 7208 §6.1)`);
    return child;
  }
  return { result: "neutral", domain, mechanism: null, reason: `no mechanism matched in ${domain} (default neutral, RFC 7208 §4.7)`, explanation: null };
}

function countLookup(s: State, term: string): void {
  s.lookups++;
  if (s.lookups > MAX_LOOKUPS) throw new Abort("permerror", `more than ${MAX_LOOKUPS} DNS-querying terms (at ${term}, RFC 7208 §4.6.4)`);
}

function countVoid(s: State, name: string): void {
  s.voids++;
  if (s.voids > MAX_VOID_LOOKUPS) throw new Abort("permerror", `more than ${MAX_VOID_LOOKUPS} void lookups (at ${name}, RFC 7208 §4.6.4)`);
}

async function expand(spec: string, domain: string, s: State): Promise<string> {
  const validatedName = macroLetters(spec).has("p") ? await validatedFor(domain, s) : undefined;
  const r = expandMacros(spec, { ...s.base, domain, validatedName });
  if (!r.ok) throw new Abort("permerror", `macro expansion failed: ${r.error}`);
  return truncateDomain(r.value.toLowerCase());
}

/**
 * %{p} (RFC 7208 §7.3): "If the <domain> is present in the list of validated domains, it SHOULD be
 * used. Otherwise, if a subdomain of the <domain> is present, it SHOULD be used. Otherwise, any name
 * from the list can be used. If there are no validated domain names or if a DNS error occurs, the
 * string "unknown" is used."
 */
export function pickValidatedName(names: readonly string[], domain: string): string {
  const d = domain.toLowerCase().replace(/\.$/, "");
  return names.find((n) => n === d) ?? names.find((n) => n.endsWith(`.${d}`)) ?? names[0] ?? "unknown";
}

async function validatedFor(domain: string, s: State): Promise<string> {
  s.validated ??= await validatedNames(s, null);
  return pickValidatedName(s.validated, domain);
}

/**
 * The target name of a/mx/ptr/exists/include, or null when it cannot be queried at all (an empty
 * label, a label over 63 octets, also when a macro produced it). Such a name is no DNS error a retry
 * could fix, so it is never temperror (RFC 7208 §2.6.6); RFC 7208 §4.8 leaves the outcome to the
 * implementation, and here the mechanism does not match (include: the target has no record, §5.2).
 */
async function target(mech: Mechanism, domain: string, s: State): Promise<string | null> {
  if (mech.domainSpec === null) return domain;
  const name = await expand(mech.domainSpec, domain, s);
  return canonicalName(name) === null ? null : name;
}

async function addressMatch(name: string, s: State, prefix: number, countVoids: boolean): Promise<boolean> {
  const res = await s.resolver.query(name, s.ip.version === 4 ? "A" : "AAAA");
  if (res.kind === "temperror") throw new Abort("temperror", `${s.ip.version === 4 ? "A" : "AAAA"} ${name}: ${res.reason}`);
  if (res.kind !== "records") {
    if (countVoids) countVoid(s, name);
    return false;
  }
  return res.records.some((r) => {
    const net = parseIp(r);
    return net !== null && inCidr(s.ip, net, prefix);
  });
}

async function matches(mech: Mechanism, domain: string, s: State): Promise<boolean> {
  const prefix = s.ip.version === 4 ? (mech.cidr4 ?? 32) : (mech.cidr6 ?? 128);
  switch (mech.name) {
    case "all":
      return true;
    case "ip4":
    case "ip6": {
      const net = parseIp(mech.network ?? "");
      return net !== null && inCidr(s.ip, net, prefix);
    }
    case "a": {
      const name = await target(mech, domain, s);
      return name !== null && addressMatch(name, s, prefix, true);
    }
    case "mx": {
      const name = await target(mech, domain, s);
      if (name === null) return false;
      const res = await s.resolver.query(name, "MX");
      if (res.kind === "temperror") throw new Abort("temperror", `MX ${name}: ${res.reason}`);
      if (res.kind !== "records") {
        countVoid(s, name);
        return false;
      }
      // RFC 7208 §4.6.4: more than 10 MX names is a permerror; their address lookups do not count toward 10.
      if (res.records.length > 10) throw new Abort("permerror", `mx:${name} has ${res.records.length} MX records (limit 10, RFC 7208 §4.6.4)`);
      for (const mx of res.records) {
        if (mx.exchange !== "" && (await addressMatch(mx.exchange, s, prefix, false))) return true;
      }
      return false;
    }
    case "ptr": {
      const t = await target(mech, domain, s);
      if (t === null) return false;
      const names = await validatedNames(s, t);
      return names.some((n) => n === t || n.endsWith(`.${t}`));
    }
    case "exists": {
      const name = await target(mech, domain, s);
      if (name === null) return false;
      const res = await s.resolver.query(name, "A"); // RFC 7208 §5.7: always an A query, even for IPv6
      if (res.kind === "temperror") throw new Abort("temperror", `A ${name}: ${res.reason}`);
      if (res.kind !== "records") {
        countVoid(s, name);
        return false;
      }
      return true;
    }
    case "include": {
      const t = await target(mech, domain, s);
      if (t === null) throw new Abort("permerror", `${mech.raw} names no valid domain, so it has no SPF record (RFC 7208 §4.8, §5.2)`);
      const child = await checkHost(t, s, mech.raw);
      // RFC 7208 §5.2 table: none becomes permerror; temperror/permerror propagate.
      if (child.result === "none") throw new Abort("permerror", `include:${t} has no SPF record (RFC 7208 §5.2)`);
      return child.result === "pass";
    }
  }
}

/** RFC 7208 §5.5: PTR names (at most 10) whose forward lookup returns the client IP; DNS errors fail to match. */
async function validatedNames(s: State, preferSuffix: string | null): Promise<string[]> {
  const ptr = await s.resolver.query(reverseName(s.ip), "PTR");
  if (ptr.kind !== "records") {
    if (ptr.kind !== "temperror" && preferSuffix !== null) countVoid(s, reverseName(s.ip));
    return [];
  }
  const out: string[] = [];
  for (const name of ptr.records.slice(0, 10)) {
    const fwd = await s.resolver.query(name, s.ip.version === 4 ? "A" : "AAAA");
    if (
      fwd.kind === "records" &&
      fwd.records.some((r) => {
        const a = parseIp(r);
        return a !== null && inCidr(s.ip, a, s.ip.version === 4 ? 32 : 128);
      })
    )
      out.push(name);
  }
  return out;
}

/** RFC 7208 §6.2: failures fetching or expanding exp= silently give no explanation; not counted. */
async function explain(spec: string, domain: string, s: State): Promise<string | null> {
  const p = async (text: string): Promise<string | undefined> => (macroLetters(text).has("p") ? await validatedFor(domain, s) : undefined);
  const name = expandMacros(spec, { ...s.base, domain, validatedName: await p(spec) });
  if (!name.ok) return null;
  const owner = truncateDomain(name.value);
  if (canonicalName(owner) === null) return null;
  const res = await s.resolver.query(owner, "TXT");
  if (res.kind !== "records" || res.records.length !== 1) return null;
  const template = res.records[0] ?? "";
  const text = expandMacros(template, { ...s.base, domain, validatedName: await p(template) }, true);
  return text.ok ? text.value : null;
}
