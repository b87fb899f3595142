// What an included SPF record passes, as networks plus terms that must stay as written (docs/decisions.md D164).
// Pure, no I/O: reads the tree and networks analyzeSpf already resolved.
import type { SpfNetwork, SpfNode, SpfTermInfo } from "./analysis-types";
import { type AddressSet, EMPTY_SET, EVERY_ADDRESS, isEmpty, setOf, subtract, union } from "./cidr-set";
import { macroLetters } from "./macro";
import type { Mechanism, Modifier } from "./types";

/** One member of a pass set: a static set of addresses, or a term kept as written (exists, ptr, a macro
 *  include...) whose text means the same in any record, so it can be moved out of the record it was in. */
export type PassItem = { kind: "net"; set: AddressSet } | { kind: "term"; text: string; info: SpfTermInfo };

/** `items` match exactly the addresses the record passes: a sender passes iff some item matches it. */
export type PassForm = { ok: true; items: PassItem[] } | { ok: false; why: string };

export interface EvaluatedTerm {
  term: Mechanism | Modifier;
  info: SpfTermInfo;
}

/** The record's evaluated terms (analyzeSpf's byTerm) with their parsed form, matched by position. */
export function evaluatedTerms(node: SpfNode): EvaluatedTerm[] {
  const out: EvaluatedTerm[] = [];
  for (const info of node.terms) {
    const term = node.parsed?.terms.find((t) => t.position === info.position);
    if (term) out.push({ term, info });
  }
  return out;
}

/** The addresses an a/mx term of `domain` stands for now, as analyzeSpf resolved them. */
export function termNetworks(networks: readonly SpfNetwork[], domain: string, raw: string): AddressSet {
  return setOf(networks.filter((n) => n.domain === domain && n.term === raw).map((n) => n.cidr));
}

const bare = (raw: string): string => raw.replace(/^[+\-~?]/, "");

/** %{d} and %{p} depend on the record the term sits in (RFC 7208 §7.3), so such a term means something
 *  else once moved into another record. */
function contextFree(spec: string | null): boolean {
  if (spec === null) return true;
  const letters = macroLetters(spec);
  return !letters.has("d") && !letters.has("p");
}

/**
 * The pass set of a record (RFC 7208 §4.6.2: mechanisms are tried left to right and the first match
 * decides). A sender passes iff some "+" mechanism matches it and no earlier non-pass mechanism does,
 * so the set is the union over "+" mechanisms of (its matches minus the earlier non-pass matches).
 * That difference can be computed only when the earlier non-pass matches are static networks; a term
 * whose matches are unknown offline (exists, ptr, a macro) can stay in the union only when nothing
 * non-pass precedes it. An include matches exactly its target's pass set (RFC 7208 §5.2: an inner
 * fail, softfail or neutral is just "no match"); a redirect= adds its target's pass set for the
 * senders no mechanism matched (§6.1).
 */
export function passForm(node: SpfNode, networks: readonly SpfNetwork[], memo = new Map<string, PassForm>(), path: string[] = []): PassForm {
  const cached = memo.get(node.domain);
  if (cached) return cached;
  if (path.includes(node.domain)) return { ok: false, why: `${node.domain} includes itself` };
  const result = computePassForm(node, networks, memo, [...path, node.domain]);
  memo.set(node.domain, result);
  return result;
}

function computePassForm(node: SpfNode, networks: readonly SpfNetwork[], memo: Map<string, PassForm>, path: string[]): PassForm {
  if (!node.parsed || node.record === null) return { ok: false, why: `${node.domain} has no usable SPF record` };
  const items: PassItem[] = [];
  /** Static addresses an earlier non-pass mechanism decided. */
  let denied: AddressSet = EMPTY_SET;
  /** The first earlier non-pass term whose matches are unknown: nothing may be added after it. */
  let unknownDenial: string | null = null;

  const addPass = (set: AddressSet, raw: string): PassForm | null => {
    const rest = subtract(set, denied);
    if (isEmpty(rest)) return null;
    if (unknownDenial !== null) return { ok: false, why: `${unknownDenial} comes before ${raw} and what it matches is known only per message` };
    items.push({ kind: "net", set: rest });
    return null;
  };
  const addTerm = (text: string, info: SpfTermInfo, raw: string): PassForm | null => {
    if (unknownDenial !== null) return { ok: false, why: `${unknownDenial} comes before ${raw} and what it matches is known only per message` };
    if (!isEmpty(denied)) return { ok: false, why: `${raw} follows terms that do not pass (${node.domain}), and what it matches is known only per message` };
    items.push({ kind: "term", text, info });
    return null;
  };
  /** Adds what a term matches (its pass set when it is an include) under qualifier `pass` or not. */
  const add = (matches: PassForm, pass: boolean, raw: string): PassForm | null => {
    if (!matches.ok) return matches;
    if (pass) {
      for (const item of matches.items) {
        const failed = item.kind === "net" ? addPass(item.set, raw) : addTerm(item.text, item.info, raw);
        if (failed) return failed;
      }
      return null;
    }
    for (const item of matches.items) {
      if (item.kind === "net") denied = union(denied, item.set);
      else unknownDenial ??= `${raw} (in ${node.domain})`;
    }
    return null;
  };
  const opaque = (text: string, info: SpfTermInfo): PassForm => ({ ok: true, items: [{ kind: "term", text, info }] });

  for (const { term, info } of evaluatedTerms(node)) {
    const pass = term.kind === "modifier" || term.qualifier === "+";
    let matches: PassForm;
    if (term.kind === "modifier") {
      // redirect=: the target's pass set for every sender no mechanism matched (RFC 7208 §6.1).
      matches = childForm(info, networks, memo, path, term.value, term.raw);
    } else if (term.name === "all") {
      matches = { ok: true, items: [{ kind: "net", set: EVERY_ADDRESS }] };
    } else if (term.name === "ip4" || term.name === "ip6") {
      const len = term.name === "ip4" ? term.cidr4 : term.cidr6;
      matches = { ok: true, items: [{ kind: "net", set: setOf([`${term.network}${len === null ? "" : `/${len}`}`]) }] };
    } else if ((term.name === "a" || term.name === "mx") && !info.dynamic) {
      // Resolved now, in this record's own domain (RFC 7208 §5.3, §5.4): flattened to what it is today.
      matches = { ok: true, items: [{ kind: "net", set: termNetworks(networks, node.domain, term.raw) }] };
    } else if (term.name === "include") {
      matches = childForm(info, networks, memo, path, term.domainSpec ?? "", term.raw);
    } else if (!contextFree(term.domainSpec)) {
      matches = { ok: false, why: `${term.raw} in ${node.domain} uses %{d} or %{p}, which would mean another domain in another record` };
    } else {
      // exists, ptr, a/mx with message macros: unknown until a message arrives, kept as written.
      matches = opaque(term.name === "ptr" && term.domainSpec === null ? `ptr:${node.domain}` : bare(term.raw), info);
    }
    const failed = add(matches, pass, term.raw);
    if (failed) return failed;
    if (term.kind === "mechanism" && term.name === "all") break;
  }
  return { ok: true, items };
}

/** What an include or redirect target matches: its pass set when it can be listed, else the include kept as one term. */
function childForm(info: SpfTermInfo, networks: readonly SpfNetwork[], memo: Map<string, PassForm>, path: string[], spec: string, raw: string): PassForm {
  if (info.child) {
    const inner = passForm(info.child, networks, memo, path);
    // A target that cannot be listed is still one include, valid in any record under its literal name.
    return inner.ok ? inner : { ok: true, items: [{ kind: "term", text: `include:${info.child.domain}`, info }] };
  }
  if (info.dynamic && contextFree(spec)) return { ok: true, items: [{ kind: "term", text: `include:${spec}`, info }] };
  return { ok: false, why: `${raw} cannot be resolved offline and depends on the record it sits in` };
}
