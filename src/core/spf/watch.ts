// Watching flattened SPF includes (docs/decisions.md D173): which flattenings the domain has published, and
// what a provider changed since. Flattening copies a provider's addresses into the domain's record, so a
// provider that adds a range leaves it out until the record is updated. Pure, no I/O.
import type { SpfAnalysis } from "./analysis-types";
import { isEmpty, setOf, subtract, toCidrs, union } from "./cidr-set";
import { flattenedChanged } from "./flatten";

export interface WatchedInclude {
  include: string;
  cidrs: string[];
}

/** The networks the domain's published record (and its own chain records) authorise directly. */
function ownNetworks(spf: SpfAnalysis): string[] {
  const own = (d: string) => d === spf.domain || d.endsWith(`.${spf.domain}`);
  return spf.networks.filter((n) => own(n.domain) && /^ip[46]:/i.test(n.term)).map((n) => n.cidr);
}

/** Whether the record still reaches `include` through its include/redirect terms. */
function includedNow(spf: SpfAnalysis, include: string): boolean {
  const seen = new Set<string>();
  const walk = (n: SpfAnalysis["tree"], depth: number): boolean => {
    if (n === null || depth >= 12 || seen.has(n.domain)) return false;
    seen.add(n.domain);
    return n.domain === include || n.terms.some((t) => walk(t.child, depth + 1));
  };
  return (spf.tree?.terms ?? []).some((t) => walk(t.child, 0));
}

/**
 * The watch list after this check: what was watched before, plus each flattening the last plan offered that the
 * published record now carries (the include gone, its networks listed). An include the record names again is
 * no longer flattened, so it is dropped.
 */
export function adoptFlattenings(watched: readonly WatchedInclude[], offered: readonly WatchedInclude[], spf: SpfAnalysis): WatchedInclude[] {
  if (spf.status === "temperror" || spf.record === null) return [...watched];
  const mine = setOf(ownNetworks(spf));
  const out = new Map<string, WatchedInclude>();
  for (const w of [...watched, ...offered]) {
    if (includedNow(spf, w.include)) continue;
    const carried = isEmpty(subtract(setOf(w.cidrs), mine));
    if (watched.includes(w) || carried) out.set(w.include, out.get(w.include) ?? w);
  }
  return [...out.values()];
}

export interface WatchChange {
  include: string;
  added: string[];
  removed: string[];
  /** The published record with the provider's change applied (removed ranges dropped, new ones before `all`). */
  record: string;
}

/** A network as the record writes it: a single address without its /32 or /128. */
const netKey = (cidr: string) => cidr.replace(/\/(32|128)$/, "").toLowerCase();

/** What changed in a watched include, from an analysis of the include's own name; temperror: nothing known. */
export function watchedChange(w: WatchedInclude, includeAnalysis: SpfAnalysis, published: string): WatchChange | null {
  if (includeAnalysis.status === "temperror") return null;
  const change = flattenedChanged([w], includeAnalysis)[0];
  if (!change) return null;
  const removed = new Set(change.removed.map(netKey));
  const terms = published.split(/\s+/).filter((t) => t !== "" && !removed.has(netKey(t.replace(/^\+?ip[46]:/i, ""))));
  const added = change.added.map((c) => `${c.includes(":") ? "ip6" : "ip4"}:${netKey(c)}`);
  const all = terms.findIndex((t) => /^[-~?+]?all$/i.test(t));
  const record = all >= 0 ? [...terms.slice(0, all), ...added, ...terms.slice(all)] : [...terms, ...added];
  return { include: w.include, added: change.added, removed: change.removed, record: record.join(" ") };
}

/** The watch entry once the domain's record carries the provider's change: the include's networks as they are now. */
export function rewatch(w: WatchedInclude, change: WatchChange, spf: SpfAnalysis): WatchedInclude {
  const now = union(subtract(setOf(w.cidrs), setOf(change.removed)), setOf(change.added));
  const carried = isEmpty(subtract(now, setOf(ownNetworks(spf))));
  return carried ? { include: w.include, cidrs: toCidrs(now) } : w;
}
