// Why an SPF record cannot be flattened: errors that flattening does not fix (docs/decisions.md D163). Pure, no I/O.
import type { SpfAnalysis, SpfNode } from "./analysis-types";

/** The first error in the tree that no flattening fixes, in words naming the term; null when there is none.
 *  Only the lookup and void-lookup limits (RFC 7208 §4.6.4) are what flattening is for. */
export function flattenBlocker(a: SpfAnalysis): string | null {
  if (a.status === "temperror") return `the analysis is incomplete (${a.statusReason}); try again once DNS answers`;
  if (a.recordsFound.length > 1) return `${a.domain} publishes ${a.recordsFound.length} SPF records; merge them into one first (RFC 7208 §4.5)`;
  if (!a.tree || a.record === null) return `${a.domain} publishes no SPF record, so there is nothing to flatten`;
  const inTree = nodeBlocker(a.tree, []);
  if (inTree) return inTree;
  const mx = a.findings.find((f) => f.rule === "spf.mx-too-many-hosts");
  if (mx) return mx.description;
  if (a.lookups.truncated)
    return `the include tree needs far more than ${a.lookups.limit} DNS lookups and the analysis stopped following it, so what the unread includes authorise is unknown; remove includes you no longer use first`;
  return null;
}

function nodeBlocker(node: SpfNode, path: string[]): string | null {
  const where = path.length === 0 ? `the SPF record of ${node.domain}` : `the SPF record of ${node.domain} (reached through ${path.join(" → ")})`;
  const syntax = node.parsed?.errors[0];
  if (syntax) {
    const term = syntax.term ? ` ("${syntax.term}")` : "";
    return `syntax error in ${where} at character ${syntax.position}${term}: ${syntax.message}; receivers return permerror (RFC 7208 §4.6). Fix it first`;
  }
  for (const t of node.terms) {
    const inside = path.length === 0 ? `${node.domain}` : `${node.domain}, reached through ${path.join(" → ")}`;
    if (t.note === "loop")
      return `${t.term} in ${inside} loops back to a record already being evaluated: remove it (receivers return permerror, RFC 7208 §4.6.4)`;
    const child = t.child;
    if (!child) continue;
    if (child.error !== null && child.recordsFound.length > 1)
      return `${t.term} in ${inside} points at ${child.domain}, which publishes ${child.recordsFound.length} SPF records: fix that record or remove the term (RFC 7208 §4.5)`;
    if (child.error !== null || child.record === null) {
      const section = child.via === "redirect" ? "§6.1" : "§5.2";
      return `${t.term} in ${inside} names ${child.domain}, which has no SPF record: remove the term or fix its target (receivers return permerror, RFC 7208 ${section})`;
    }
    const below = nodeBlocker(child, [...path, `${t.term} in ${node.domain}`]);
    if (below) return below;
  }
  return null;
}
