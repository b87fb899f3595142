// check_host() (RFC 7208 §4): evaluates SPF for a client IP and sender. I/O only via the injected Resolver.
import type { Resolver } from "../dns/types";
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
  validated?: string;
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
    base: { sender: fullSender, ip, helo: opts.helo ?? d, receiver: opts.receiver, timestamp: opts.timestamp },
  };
  const done = (o: Outcome): SpfEvaluation => ({ ...o, lookups: state.lookups, voidLookups: state.voids });
  if (!parsedIp) return done({ result: "permerror", domain: d, mechanism: null, reason: `"${ip}" is not an IP address`, explanation: null });
  try {
    return done(await checkHost(d, state));
  } catch (e) {
    if (e instanceof Abort) return done({ result: e.result, domain: d, mechanism: null, reason: e.reason, explanation: null });
    throw e;
  }
}

async function checkHost(domain: string, s: State): Promise<Outcome> {
  const none = (reason: string): Outcome => ({ result: "none", domain, mechanism: null, reason, explanation: null });
  if (!isValidDomain(domain)) return none(`"${domain}" is not a valid domain (RFC 7208 §4.3)`);
  const found = await fetchSpf(domain, s.resolver);
  if (found.kind === "temperror") throw new Abort("temperror", found.reason);
  if (found.kind === "none") return none(`no SPF record at ${domain}`);
  if (found.kind === "multiple") throw new Abort("permerror", `${found.records.length} SPF records at ${domain} (RFC 7208 §4.5)`);
  const rec = parseSpf(found.record);
  const firstError = rec.errors[0];
  if (firstError) throw new Abort("permerror", `syntax error in ${domain} at ${firstError.position}: ${firstError.message}`);

  for (const mech of rec.mechanisms) {
    if (LOOKUP_TERMS.has(mech.name)) countLookup(s, mech.raw);
    if (await matches(mech, domain, s)) {
      const result = QUALIFIER_RESULT[mech.qualifier];
      const explanation = result === "fail" && rec.exp ? await explain(rec.exp.value, domain, s) : null;
      return { result, domain, mechanism: mech.raw, reason: `matched ${mech.raw} in ${domain}`, explanation };
    }
  }
  // RFC 7208 §6.1: redirect applies only when no mechanism matched and the record has no "all".
  if (rec.redirect && !rec.mechanisms.some((m) => m.name === "all")) {
    countLookup(s, rec.redirect.raw);
    const target = expand(rec.redirect.value, domain, s);
    const child = await checkHost(target, s);
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

function expand(spec: string, domain: string, s: State): string {
  const r = expandMacros(spec, { ...s.base, domain, validatedName: s.validated });
  if (!r.ok) throw new Abort("permerror", `macro expansion failed: ${r.error}`);
  return truncateDomain(r.value.toLowerCase());
}

async function target(mech: Mechanism, domain: string, s: State): Promise<string> {
  if (mech.domainSpec === null) return domain;
  if (macroLetters(mech.domainSpec).has("p") && s.validated === undefined) s.validated = (await validatedNames(s, null))[0] ?? "unknown";
  return expand(mech.domainSpec, domain, s);
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
    case "a":
      return addressMatch(await target(mech, domain, s), s, prefix, true);
    case "mx": {
      const name = await target(mech, domain, s);
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
      const names = await validatedNames(s, t);
      return names.some((n) => n === t || n.endsWith(`.${t}`));
    }
    case "exists": {
      const name = await target(mech, domain, s);
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
      const child = await checkHost(t, s);
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
  const name = expandMacros(spec, { ...s.base, domain });
  if (!name.ok) return null;
  const res = await s.resolver.query(truncateDomain(name.value), "TXT");
  if (res.kind !== "records" || res.records.length !== 1) return null;
  const text = expandMacros(res.records[0] ?? "", { ...s.base, domain, validatedName: s.validated }, true);
  return text.ok ? text.value : null;
}
