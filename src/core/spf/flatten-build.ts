// Writes a flattened SPF record as text, moving runs of networks into include: chains when it is too long
// (docs/decisions.md D165). Pure, no I/O.
import { type AddressSet, toCidrs, union } from "./cidr-set";
import type { Qualifier } from "./types";

/** One piece of the new record, in evaluation order: a term as written, or networks under one qualifier. */
export type Piece = { kind: "text"; text: string } | { kind: "net"; qualifier: Qualifier; set: AddressSet };

export interface BuiltRecords {
  /** The domain's own record. */
  root: string;
  /** The records of the include chain, each `v=spf1` and its networks, without "all". */
  chains: { host: string; value: string }[];
  /** Networks written in the new records (after merging). */
  networkTerms: number;
}

export const octets = (s: string): number => new TextEncoder().encode(s).length;

const prefix = (q: Qualifier): string => (q === "+" ? "" : q);

/** ip4:/ip6: terms for a set; a single address is written without /32 or /128 (RFC 7208 §5.6). */
function netTerms(q: Qualifier, set: AddressSet): string[] {
  return toCidrs(set).map((cidr) => {
    const v6 = cidr.includes(":");
    const text = cidr.replace(v6 ? /\/128$/ : /\/32$/, "");
    return `${prefix(q)}${v6 ? "ip6" : "ip4"}:${text}`;
  });
}

type Part = { kind: "text"; text: string } | { kind: "run"; qualifier: Qualifier; set: AddressSet; terms: string[]; chunks: string[][] | null };

/** Packs terms into as few `v=spf1 …` records of at most `max` octets as it can, in order. */
function chunk(terms: string[], max: number): string[][] | null {
  const out: string[][] = [];
  let current: string[] = [];
  for (const t of terms) {
    if (octets(`v=spf1 ${t}`) > max) return null;
    if (current.length > 0 && octets(`v=spf1 ${[...current, t].join(" ")}`) > max) {
      out.push(current);
      current = [];
    }
    current.push(t);
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * The records for `pieces`. Neighbouring networks under the same qualifier are one union: whichever of
 * them matches first, the result is the same (RFC 7208 §4.6.2), so they are merged into the fewest CIDR
 * blocks covering exactly the same addresses. When the record is longer than `max` octets, whole runs
 * (largest first) move into records `_spfN.<domain>` that the record includes in their place under the
 * run's qualifier: an include matches exactly when its record passes (RFC 7208 §5.2), and a chain record
 * holds only networks and no "all", so a sender outside them gets neutral there, which for the includer
 * is "no match" and evaluation goes on with the next term. Null when the terms that must stay are too long.
 */
export function buildRecords(pieces: Piece[], domain: string, max: number, taken: ReadonlySet<string>): BuiltRecords | null {
  const parts: Part[] = [];
  for (const p of pieces) {
    const last = parts[parts.length - 1];
    if (p.kind === "text") parts.push({ kind: "text", text: p.text });
    else if (last?.kind === "run" && last.qualifier === p.qualifier) last.set = union(last.set, p.set);
    else parts.push({ kind: "run", qualifier: p.qualifier, set: p.set, terms: [], chunks: null });
  }
  for (const part of parts) if (part.kind === "run") part.terms = netTerms(part.qualifier, part.set);
  const names: string[] = [];
  for (let n = 1; names.length < 200 && n < 1000; n++) if (!taken.has(`_spf${n}.${domain}`)) names.push(`_spf${n}.${domain}`);

  const render = (): { root: string; chains: { host: string; value: string }[] } => {
    let next = 0;
    const words: string[] = [];
    const chains: { host: string; value: string }[] = [];
    for (const part of parts) {
      if (part.kind === "text") words.push(part.text);
      else if (part.chunks === null) words.push(...part.terms);
      else
        for (const c of part.chunks) {
          const host = names[next++] ?? `_spf${next}.${domain}`;
          words.push(`${prefix(part.qualifier)}include:${host}`);
          // Chain records hold bare (pass) terms: the qualifier is on the include that stands for them.
          chains.push({ host, value: ["v=spf1", ...c.map((t) => t.replace(/^[+\-~?]/, ""))].join(" ") });
        }
    }
    return { root: ["v=spf1", ...words].join(" "), chains };
  };

  let out = render();
  const runs = parts.filter((p): p is Extract<Part, { kind: "run" }> => p.kind === "run").sort((a, b) => octets(b.terms.join(" ")) - octets(a.terms.join(" ")));
  for (const run of runs) {
    if (octets(out.root) <= max) break;
    const chunks = chunk(
      run.terms.map((t) => t.replace(/^[+\-~?]/, "")),
      max,
    );
    if (chunks === null) return null;
    run.chunks = chunks;
    out = render();
  }
  if (octets(out.root) > max) return null;
  const networkTerms = parts.reduce((n, p) => n + (p.kind === "run" ? p.terms.length : 0), 0);
  return { ...out, networkTerms };
}
