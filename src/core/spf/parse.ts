// Parses an SPF record into positioned terms with syntax errors (RFC 7208 §4.5, §4.6, §5, §6, §12). Pure, no I/O.
import { parseIpv4, parseIpv6 } from "./ip";
import { checkMacroString } from "./macro";
import type { Mechanism, MechanismName, Modifier, ParsedSpf, Qualifier, SpfSyntaxError, Term } from "./types";

const MECHANISMS: ReadonlySet<string> = new Set(["all", "include", "a", "mx", "ptr", "ip4", "ip6", "exists"]);

/** RFC 7208 §4.5: exactly "v=spf1" followed by a space or the end; "v=spf10" is not SPF. */
export const isSpfRecord = (txt: string): boolean => /^v=spf1( |$)/i.test(txt);

/**
 * RFC 7208 §7.1 toplabel = ( *alphanum ALPHA *alphanum ) / ( 1*alphanum "-" *( alphanum / "-" ) alphanum ),
 * checked in linear time (the regex form of this grammar backtracks quadratically on long labels).
 */
function isTopLabel(label: string): boolean {
  if (!/^[a-z0-9-]+$/i.test(label)) return false;
  if (!label.includes("-")) return /[a-z]/i.test(label);
  return label[0] !== "-" && label[label.length - 1] !== "-";
}

/** domain-spec = macro-string domain-end (RFC 7208 §7.1); returns an error message or null. */
export function checkDomainSpec(spec: string): { offset: number; message: string } | null {
  if (spec === "") return { offset: 0, message: "empty domain-spec" };
  const bad = checkMacroString(spec);
  if (bad) return bad;
  // domain-end: ends in a macro-expand, or "." toplabel ["."].
  if (/%\{[^}]*\}$/.test(spec) && !/%%\{[^}]*\}$/.test(spec)) return null;
  const trimmed = spec.endsWith(".") ? spec.slice(0, -1) : spec;
  const dot = trimmed.lastIndexOf(".");
  const top = trimmed.slice(dot + 1);
  if (dot < 0 || !isTopLabel(top)) {
    return { offset: 0, message: `"${spec}" is not a fully qualified domain (its last label must be a valid top label, RFC 7208 §7.1)` };
  }
  return null;
}

function cidr(text: string | undefined, max: number): number | null | "bad" {
  if (text === undefined) return null;
  if (!/^(0|[1-9][0-9]*)$/.test(text)) return "bad";
  const n = Number(text);
  return n > max ? "bad" : n;
}

type TermResult = { term: Term } | { error: { offset: number; message: string } };

function parseMechanism(raw: string): TermResult {
  const m = /^([+\-~?]?)([a-zA-Z0-9]+)(.*)$/.exec(raw);
  const name = (m?.[2] ?? "").toLowerCase();
  if (!m || !MECHANISMS.has(name)) return { error: { offset: 0, message: `unknown mechanism or modifier "${raw}"` } };
  const qualifier = (m[1] || "+") as Qualifier;
  const rest = m[3] ?? "";
  const offset = (m[1] ?? "").length + (m[2] ?? "").length;
  const mech: Mechanism = {
    kind: "mechanism",
    qualifier,
    name: name as MechanismName,
    domainSpec: null,
    network: null,
    cidr4: null,
    cidr6: null,
    raw,
    position: 0,
  };
  const fail = (message: string, at = offset): TermResult => ({ error: { offset: at, message } });

  if (name === "all") return rest === "" ? { term: mech } : fail(`unexpected "${rest}" after all`);
  if (name === "include" || name === "exists" || name === "ptr") {
    if (rest === "" && name === "ptr") return { term: mech };
    if (!rest.startsWith(":")) return fail(`${name} requires ":domain"`);
    const bad = checkDomainSpec(rest.slice(1));
    if (bad) return fail(bad.message, offset + 1 + bad.offset);
    mech.domainSpec = rest.slice(1);
    return { term: mech };
  }
  if (name === "a" || name === "mx") {
    // dual-cidr-length = [ ip4-cidr-length ] [ "/" ip6-cidr-length ] (RFC 7208 §5.6)
    const c = /(?:\/([0-9]+))?(?:\/\/([0-9]+))?$/.exec(rest);
    const suffix = c?.[0] ?? "";
    const body = rest.slice(0, rest.length - suffix.length);
    const c4 = cidr(c?.[1], 32);
    const c6 = cidr(c?.[2], 128);
    if (c4 === "bad" || c6 === "bad") return fail(`invalid CIDR length "${suffix}"`, offset + body.length);
    mech.cidr4 = c4;
    mech.cidr6 = c6;
    if (body === "") return { term: mech };
    if (!body.startsWith(":")) return fail(`unexpected "${body}" after ${name}`);
    const bad = checkDomainSpec(body.slice(1));
    if (bad) return fail(bad.message, offset + 1 + bad.offset);
    mech.domainSpec = body.slice(1);
    return { term: mech };
  }
  // ip4 / ip6: no macros allowed (RFC 7208 §5.6, checkdmarc flags them too).
  if (!rest.startsWith(":")) return fail(`${name} requires ":address"`);
  // "ip4:1.2.3.4~all": a broken TXT split or a typo glued two terms (checkdmarc flags it too).
  const glued = /^(.*?)([+\-~?]?all)$/i.exec(rest.slice(1));
  if (glued?.[1] && "term" in parseMechanism(`${name}:${glued[1]}`)) {
    return fail(`"${glued[2]}" is glued to the address: a space is missing before it`, offset + 1 + glued[1].length);
  }
  const [addr = "", len, extra] = rest.slice(1).split("/");
  if (addr.includes("%")) return fail(`macros are not allowed in ${name} (RFC 7208 §5.6)`, offset + 1);
  const ip = name === "ip4" ? parseIpv4(addr) : parseIpv6(addr);
  if (!ip) return fail(`"${addr}" is not a valid ${name === "ip4" ? "IPv4" : "IPv6"} address`, offset + 1);
  const c = cidr(len, name === "ip4" ? 32 : 128);
  if (c === "bad" || extra !== undefined) return fail(`invalid CIDR length in "${rest.slice(1)}"`, offset + 1 + addr.length);
  mech.network = addr;
  if (name === "ip4") mech.cidr4 = c;
  else mech.cidr6 = c;
  return { term: mech };
}

function parseTerm(raw: string): TermResult {
  const mod = /^([a-zA-Z][a-zA-Z0-9\-_.]*)=(.*)$/.exec(raw);
  if (!mod) return parseMechanism(raw);
  const name = (mod[1] ?? "").toLowerCase();
  const value = mod[2] ?? "";
  const bad = name === "redirect" || name === "exp" ? checkDomainSpec(value) : checkMacroString(value);
  if (bad) return { error: { offset: name.length + 1 + bad.offset, message: `${name}=: ${bad.message}` } };
  const term: Modifier = { kind: "modifier", name, value, raw, position: 0 };
  return { term };
}

/** Parses a record. Never throws; `errors` is empty for a valid record. */
export function parseSpf(text: string): ParsedSpf {
  const out: ParsedSpf = {
    text,
    terms: [],
    mechanisms: [],
    redirect: null,
    exp: null,
    unknownModifiers: [],
    errors: [],
    ignoredAfterAll: [],
  };
  const error = (position: number, message: string, term: string | null): void => {
    out.errors.push({ position, message, term } satisfies SpfSyntaxError);
  };
  if (!isSpfRecord(text)) {
    error(0, 'the record must begin with exactly "v=spf1" followed by a space or the end (RFC 7208 §4.5)', null);
    return out;
  }
  let seenAll = false;
  for (const m of text.slice(6).matchAll(/[^ ]+/g)) {
    const raw = m[0];
    const position = 6 + (m.index ?? 0);
    const r = parseTerm(raw);
    if ("error" in r) {
      error(position + r.error.offset, r.error.message, raw);
      continue;
    }
    const term = { ...r.term, position };
    out.terms.push(term);
    if (term.kind === "mechanism") {
      if (seenAll) out.ignoredAfterAll.push(term);
      out.mechanisms.push(term);
      if (term.name === "all") seenAll = true;
      continue;
    }
    if (term.name === "redirect" || term.name === "exp") {
      // RFC 7208 §6: these modifiers MUST NOT appear more than once.
      if (out[term.name]) error(position, `${term.name}= appears more than once (RFC 7208 §6)`, raw);
      out[term.name] = term;
    } else {
      if (seenAll) out.ignoredAfterAll.push(term);
      out.unknownModifiers.push(term);
    }
  }
  if (/[^ -~]/.test(text)) error(text.search(/[^ -~]/), "non-ASCII or control character in the record", null);
  return out;
}

/** Rebuilds a record from terms, for mechanical fix strings. */
export const formatSpf = (terms: readonly Term[]): string => ["v=spf1", ...terms.map((t) => t.raw)].join(" ");
