// SPF flattening: rewrites a record over the lookup limits into records within them that authorise exactly the
// same senders (RFC 7208 §4.6.4; docs/decisions.md D163-D166). Pure, no I/O: works on analyzeSpf's result.
import type { SpfAnalysis, SpfNode, SpfTermInfo } from "./analysis-types";
import { type AddressSet, isEmpty, setOf, subtract, toCidrs, union } from "./cidr-set";
import { flattenBlocker } from "./flatten-blockers";
import { buildRecords, octets, type Piece } from "./flatten-build";
import { evaluatedTerms, type PassItem, passForm, termNetworks } from "./flatten-pass-set";
import { MAX_LOOKUPS, MAX_VOID_LOOKUPS, type Mechanism, type Modifier } from "./types";

/** A TXT record to publish; `strings` are its character-strings of at most 255 octets each. */
export interface SpfFlatRecord {
  host: string;
  value: string;
  strings: string[];
}

export type SpfFlattening =
  | {
      ok: true;
      /** records[0] is the domain's own SPF record; the rest are the include chain it names. */
      records: SpfFlatRecord[];
      /** Each static include replaced, with the networks it stood for. */
      flattened: { include: string; cidrs: string[] }[];
      /** DNS-querying terms kept as they are (macros, exists, ptr, includes that cannot be listed, own a/mx). */
      kept: string[];
      /** What was done, in words. */
      steps: string[];
      lookups: number;
      voidLookups: { ipv4: number; ipv6: number };
    }
  | { ok: false; reason: string };

export interface SpfFlattenOptions {
  /** Longest record written, in octets; 512 by default (RFC 7208 §3.4, docs/decisions.md D165). */
  maxRecordOctets?: number;
  /** Most DNS-querying terms left (10 by default, RFC 7208 §4.6.4); the remediation plan asks for 7, below
   *  the "nearly spent" finding, so that one more provider include does not break the record. */
  maxLookups?: number;
}

const MAX_STRING = 255;

/**
 * The character-strings of a TXT record value: at most 255 octets each (RFC 1035 §3.3.14), which
 * receivers join without adding spaces (RFC 7208 §3.3). A cut goes after a space when one is near
 * enough, so each string starts with a whole term; never inside a UTF-8 sequence.
 */
export function splitTxtStrings(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const decoder = new TextDecoder();
  const out: string[] = [];
  let start = 0;
  while (bytes.length - start > MAX_STRING) {
    let end = start + MAX_STRING;
    while (end > start && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--; // not inside a UTF-8 sequence
    const space = bytes.lastIndexOf(0x20, end - 1);
    if (space >= start + MAX_STRING / 2) end = space + 1;
    out.push(decoder.decode(bytes.subarray(start, end)));
    start = end;
  }
  out.push(decoder.decode(bytes.subarray(start)));
  return out;
}

interface Counts {
  lookups: number;
  ipv4: number;
  ipv6: number;
}

interface Slot {
  term: Mechanism | Modifier;
  info: SpfTermInfo;
  state: "keep" | "drop" | "flat";
  /** What the term can be replaced with (an include's pass set, an own a/mx's addresses); null if nothing. */
  form: PassItem[] | null;
  /** 1: an include; 2: the domain's own a/mx, flattened only when the includes are not enough. */
  tier: 1 | 2 | null;
  /** Why an include cannot be replaced by networks. */
  why: string | null;
}

const isMech = (t: Mechanism | Modifier): t is Mechanism => t.kind === "mechanism";
const isInclude = (s: Slot): boolean => isMech(s.term) && s.term.name === "include";
const includeKey = (s: Slot): string => s.info.child?.domain ?? (isMech(s.term) ? (s.term.domainSpec ?? "").toLowerCase() : "");
const qualifierOf = (s: Slot): string => (isMech(s.term) ? s.term.qualifier : "+");

function slotCost(s: Slot): Counts {
  if (s.state === "drop") return { lookups: 0, ipv4: 0, ipv6: 0 };
  const infos = s.state === "keep" ? [s.info] : (s.form ?? []).flatMap((i) => (i.kind === "term" ? [i.info] : []));
  return infos.reduce((c, i) => ({ lookups: c.lookups + i.lookups, ipv4: c.ipv4 + i.voidLookupsByFamily.ipv4, ipv6: c.ipv6 + i.voidLookupsByFamily.ipv6 }), {
    lookups: 0,
    ipv4: 0,
    ipv6: 0,
  });
}

const total = (slots: Slot[]): Counts =>
  slots.map(slotCost).reduce((a, b) => ({ lookups: a.lookups + b.lookups, ipv4: a.ipv4 + b.ipv4, ipv6: a.ipv6 + b.ipv6 }), { lookups: 0, ipv4: 0, ipv6: 0 });

/** Node `node` passes every sender `key`'s record passes: it reaches include:key (or redirect=key) through
 *  pass terms only, with no non-pass term before it that could take some of those senders first. */
function covers(node: SpfNode, key: string, depth = 0): boolean {
  if (depth > MAX_LOOKUPS * 2) return false;
  for (const { term, info } of evaluatedTerms(node)) {
    if (isMech(term) && (term.qualifier !== "+" || term.name === "all")) return false;
    if (info.child && (term.kind === "modifier" || term.name === "include")) {
      if (info.child.domain === key || covers(info.child, key, depth + 1)) return true;
    }
  }
  return false;
}

/**
 * Drops includes that never decide anything: a later copy of an include (the first copy already took every
 * sender it matches, RFC 7208 §4.6.2), an include whose target an earlier include reaches through pass
 * terms, and a pass include whose target a later pass include reaches when only pass terms lie between
 * (a run of pass terms passes the union of what they match, in any order). Each drop leaves a record that
 * gives every sender the same result, so they compose.
 */
function dropRedundant(slots: Slot[], steps: string[]): void {
  slots.forEach((s, i) => {
    if (!isInclude(s)) return;
    const key = includeKey(s);
    const live = (o: Slot, j: number): boolean => j !== i && o.state !== "drop" && isInclude(o);
    const copy = slots.find((o, j) => j < i && live(o, j) && includeKey(o) === key);
    if (copy) {
      s.state = "drop";
      steps.push(`dropped ${s.term.raw} (a duplicate: ${copy.term.raw} comes earlier)`);
      return;
    }
    const before = slots.find((o, j) => j < i && live(o, j) && o.info.child !== null && covers(o.info.child, key));
    const after = slots.find(
      (o, j) =>
        j > i &&
        live(o, j) &&
        qualifierOf(s) === "+" &&
        qualifierOf(o) === "+" &&
        o.info.child !== null &&
        covers(o.info.child, key) &&
        slots.slice(i + 1, j).every((m) => m.state === "drop" || (isMech(m.term) && m.term.qualifier === "+" && m.term.name !== "all")),
    );
    const by = before ?? after;
    if (by) {
      s.state = "drop";
      steps.push(`dropped ${s.term.raw} (also inside ${by.term.raw})`);
    }
  });
}

function slotsOf(root: SpfNode, a: SpfAnalysis): Slot[] {
  const memo = new Map();
  return evaluatedTerms(root).map(({ term, info }): Slot => {
    const slot: Slot = { term, info, state: "keep", form: null, tier: null, why: null };
    if (!isMech(term)) return slot;
    if (term.name === "include") {
      if (!info.child) {
        slot.why = "its name depends on the message (a macro), so what it authorises is known only when mail arrives";
        return slot;
      }
      const form = passForm(info.child, a.networks, memo);
      if (form.ok) {
        slot.form = form.items;
        slot.tier = 1;
      } else slot.why = form.why;
    } else if ((term.name === "a" || term.name === "mx") && !info.dynamic) {
      slot.form = [{ kind: "net", set: termNetworks(a.networks, root.domain, term.raw) }];
      slot.tier = 2;
    }
    return slot;
  });
}

const netSetOf = (items: PassItem[]): AddressSet => union(...items.flatMap((i) => (i.kind === "net" ? [i.set] : [])));

function piecesOf(slots: Slot[], extras: Modifier[], ownNetworks: boolean): Piece[] {
  const out: Piece[] = [];
  for (const s of slots) {
    if (s.state === "drop") continue;
    const t = s.term;
    if (s.state === "flat" && isMech(t)) {
      for (const item of s.form ?? []) {
        if (item.kind === "net") out.push({ kind: "net", qualifier: t.qualifier, set: item.set });
        else out.push({ kind: "text", text: `${t.qualifier === "+" ? "" : t.qualifier}${item.text}` });
      }
    } else if (ownNetworks && isMech(t) && (t.name === "ip4" || t.name === "ip6")) {
      const len = t.name === "ip4" ? t.cidr4 : t.cidr6;
      out.push({ kind: "net", qualifier: t.qualifier, set: setOf([`${t.network}${len === null ? "" : `/${len}`}`]) });
    } else out.push({ kind: "text", text: t.raw });
  }
  for (const m of extras) out.push({ kind: "text", text: m.raw });
  return out;
}

/** Every domain name the tree uses, so chain names never collide with one. */
function namesIn(node: SpfNode | null, out = new Set<string>()): Set<string> {
  if (!node || out.has(node.domain)) return out;
  out.add(node.domain);
  for (const t of node.terms) namesIn(t.child, out);
  return out;
}

const within = (c: Counts, limit: number): boolean => c.lookups <= limit && c.ipv4 <= MAX_VOID_LOOKUPS && c.ipv6 <= MAX_VOID_LOOKUPS;

/** The next term to flatten: includes before own a/mx, each time the one that saves most of what is over. */
function pick(slots: Slot[], c: Counts, limit: number): Slot | null {
  const saving = (s: Slot): Counts => {
    const now = slotCost(s);
    const flat = slotCost({ ...s, state: "flat" });
    return { lookups: now.lookups - flat.lookups, ipv4: now.ipv4 - flat.ipv4, ipv6: now.ipv6 - flat.ipv6 };
  };
  const metric = (x: Counts): number =>
    c.lookups > limit ? x.lookups : c.ipv4 > MAX_VOID_LOOKUPS && c.ipv6 > MAX_VOID_LOOKUPS ? x.ipv4 + x.ipv6 : c.ipv4 > MAX_VOID_LOOKUPS ? x.ipv4 : x.ipv6;
  for (const tier of [1, 2]) {
    const ranked = slots
      .filter((s) => s.state === "keep" && s.tier === tier && metric(saving(s)) > 0)
      .map((s) => ({ s, save: saving(s) }))
      .sort((a, b) => metric(b.save) - metric(a.save) || b.save.lookups - a.save.lookups || b.save.ipv4 + b.save.ipv6 - (a.save.ipv4 + a.save.ipv6));
    if (ranked[0]) return ranked[0].s;
  }
  return null;
}

function describeFlat(s: Slot): string {
  const items = s.form ?? [];
  const nets = toCidrs(netSetOf(items)).length;
  const kept = items.flatMap((i) => (i.kind === "term" ? [i.text] : []));
  const save = s.info.lookups - slotCost(s).lookups;
  const what = isInclude(s) ? `flattened ${s.term.raw}` : `replaced ${s.term.raw} with the addresses it has now`;
  const keptText = kept.length > 0 ? `, keeping ${kept.join(" ")} from inside it as written` : "";
  return `${what}: ${nets} network${nets === 1 ? "" : "s"}${keptText} (${save} DNS lookup${save === 1 ? "" : "s"} fewer)`;
}

function overReason(c: Counts, slots: Slot[], limit: number): string {
  const over: string[] = [];
  if (c.lookups > limit) over.push(`${c.lookups} DNS-querying terms (limit ${limit})`);
  if (c.ipv4 > MAX_VOID_LOOKUPS) over.push(`${c.ipv4} void lookups for IPv4 senders (limit ${MAX_VOID_LOOKUPS})`);
  if (c.ipv6 > MAX_VOID_LOOKUPS) over.push(`${c.ipv6} void lookups for IPv6 senders (limit ${MAX_VOID_LOOKUPS})`);
  const stays = slots
    .filter((s) => s.state === "keep" && s.info.lookups > 0)
    .map((s) => `${s.term.raw} (${s.info.lookups} lookup${s.info.lookups === 1 ? "" : "s"}${s.why ? `: ${s.why}` : ""})`);
  const hoisted = slots.flatMap((s) =>
    s.state === "flat" ? (s.form ?? []).flatMap((i) => (i.kind === "term" ? [`${i.text} (from inside ${s.term.raw})`] : [])) : [],
  );
  return `even with every include that can be listed flattened, the record still needs ${over.join(" and ")} (RFC 7208 §4.6.4); what stays: ${[...stays, ...hoisted].join(", ") || "nothing but the include chain"}`;
}

/**
 * Rewrites the analysed record so that it needs at most 10 DNS-querying terms and 2 void lookups per address
 * family (RFC 7208 §4.6.4) and every record fits in `maxRecordOctets`, authorising exactly the senders it does
 * now (as the DNS answers today): redundant includes are dropped first; only if that is not enough are static
 * includes replaced by the networks they pass, costliest first, then the domain's own a/mx; long results are
 * split into an include chain (docs/decisions.md D163-D165).
 */
export function flattenSpf(analysis: SpfAnalysis, opts: SpfFlattenOptions = {}): SpfFlattening {
  const max = opts.maxRecordOctets ?? 512;
  const limit = opts.maxLookups ?? MAX_LOOKUPS;
  const blocked = flattenBlocker(analysis);
  if (blocked) return { ok: false, reason: blocked };
  const root = analysis.tree;
  const parsed = root?.parsed;
  if (!root || !parsed || analysis.record === null) return { ok: false, reason: `${analysis.domain} publishes no SPF record, so there is nothing to flatten` };

  const steps: string[] = [];
  const slots = slotsOf(root, analysis);
  dropRedundant(slots, steps);
  // exp= and unknown modifiers stay; terms after "all" and a redirect= beside "all" are never used (RFC 7208 §5.1, §6.1).
  const extras = parsed.terms.filter((t): t is Modifier => t.kind === "modifier" && t.name !== "redirect" && !parsed.ignoredAfterAll.includes(t));
  if (parsed.ignoredAfterAll.length > 0)
    steps.push(`dropped ${parsed.ignoredAfterAll.map((t) => t.raw).join(" ")}: terms after "all" are never evaluated (RFC 7208 §5.1)`);
  const hasAll = parsed.mechanisms.some((m) => m.name === "all");
  if (parsed.redirect && hasAll) steps.push(`dropped ${parsed.redirect.raw}: it is ignored when the record has "all" (RFC 7208 §6.1)`);
  const taken = namesIn(root);

  for (;;) {
    const anyFlat = slots.some((s) => s.state === "flat");
    const counts = total(slots);
    let built = buildRecords(piecesOf(slots, extras, anyFlat), analysis.domain, Number.POSITIVE_INFINITY, taken);
    if (built && octets(built.root) > max) built = buildRecords(piecesOf(slots, extras, true), analysis.domain, max, taken);
    if (!built) {
      // The terms that stay do not fit even with every network in a chain: an include flattened moves its
      // text into networks the chain can carry, so flatten the longest one left and try again (RFC 7208 §3.4).
      const longest = slots.filter((x) => x.state === "keep" && x.tier === 1).sort((a, b) => b.term.raw.length - a.term.raw.length)[0];
      if (longest) {
        longest.state = "flat";
        continue;
      }
      return {
        ok: false,
        reason: `the terms that must stay in the record of ${analysis.domain} do not fit in ${max} octets even with every network moved into an include chain (RFC 7208 §3.4)`,
      };
    }
    const withChain = { ...counts, lookups: counts.lookups + built.chains.length };
    const rewritten =
      slots.some((s) => s.state !== "keep") || built.chains.length > 0 || parsed.ignoredAfterAll.length > 0 || (parsed.redirect !== null && hasAll);
    if (within(withChain, limit)) return done(analysis, slots, steps, rewritten ? built : { ...built, root: analysis.record }, withChain);
    const next = pick(slots, withChain, limit);
    if (!next) {
      const why = slots.filter((s) => s.state === "keep" && s.why && isInclude(s)).map((s) => `kept ${s.term.raw}: ${s.why}`);
      return { ok: false, reason: [overReason(withChain, slots, limit), ...why].join("; ") };
    }
    next.state = "flat";
  }
}

function done(
  analysis: SpfAnalysis,
  slots: Slot[],
  steps: string[],
  built: NonNullable<ReturnType<typeof buildRecords>>,
  counts: Counts,
): Extract<SpfFlattening, { ok: true }> {
  const flatSlots = slots.filter((s) => s.state === "flat");
  const changed = built.root !== analysis.record || built.chains.length > 0;
  for (const s of flatSlots) steps.push(describeFlat(s));
  if (flatSlots.length > 0) {
    for (const s of slots) if (s.state === "keep" && isInclude(s) && s.why) steps.push(`kept ${s.term.raw}: ${s.why}`);
  }
  for (const c of built.chains) steps.push(`moved networks into ${c.host}, included in their place (${octets(c.value)} octets)`);
  if (!changed) {
    steps.push(
      `nothing to change: ${counts.lookups} DNS-querying terms and ${counts.ipv4}/${counts.ipv6} void lookups (IPv4/IPv6) are within the limits (RFC 7208 §4.6.4)`,
    );
  }
  const value = built.root;
  const records: SpfFlatRecord[] = [
    { host: analysis.domain, value, strings: splitTxtStrings(value) },
    ...built.chains.map((c) => ({ ...c, strings: splitTxtStrings(c.value) })),
  ];
  const kept = slots.flatMap((s) => {
    if (s.state === "keep" && s.info.lookups > 0) return [s.term.raw];
    if (s.state !== "flat" || !isMech(s.term)) return [];
    const q = s.term.qualifier === "+" ? "" : s.term.qualifier;
    return (s.form ?? []).flatMap((i) => (i.kind === "term" ? [`${q}${i.text}`] : []));
  });
  return {
    ok: true,
    records,
    flattened: flatSlots.filter(isInclude).map((s) => ({ include: includeKey(s), cidrs: toCidrs(netSetOf(s.form ?? [])) })),
    kept,
    steps,
    lookups: counts.lookups,
    voidLookups: { ipv4: counts.ipv4, ipv6: counts.ipv6 },
  };
}

/** Every include node for `domain` in the tree, the root included. */
function findNode(node: SpfNode | null, domain: string, seen = new Set<SpfNode>()): SpfNode | null {
  if (!node || seen.has(node)) return null;
  seen.add(node);
  if (node.domain === domain && node.record !== null) return node;
  for (const t of node.terms) {
    const hit = findNode(t.child, domain, seen);
    if (hit) return hit;
  }
  return null;
}

/**
 * What changed in the networks of flattened includes since they were flattened (a provider added or
 * retired ranges), for scheduled checks. `current` is an analysis whose tree contains each include: of the
 * include itself (analyzeSpf on its name) or of a record that still includes it. An include `current` does
 * not contain is left out; one that can no longer be listed as networks reports all its old networks as
 * removed, since the flattened record no longer stands for it.
 */
export function flattenedChanged(
  previous: { include: string; cidrs: string[] }[],
  current: SpfAnalysis,
): { include: string; added: string[]; removed: string[] }[] {
  const out: { include: string; added: string[]; removed: string[] }[] = [];
  const memo = new Map();
  for (const p of previous) {
    const node = findNode(current.tree, p.include.toLowerCase().replace(/\.$/, ""));
    if (!node) continue;
    const before = setOf(p.cidrs);
    const form = passForm(node, current.networks, memo);
    const now: AddressSet = form.ok ? netSetOf(form.items) : { v4: [], v6: [] };
    const added = toCidrs(subtract(now, before));
    const removed = toCidrs(subtract(before, now));
    if (!isEmpty(subtract(now, before)) || !isEmpty(subtract(before, now))) out.push({ include: p.include, added, removed });
  }
  return out;
}
