// SPF steps of the remediation plan: one record from several, broken includes removed, the record brought
// within RFC 7208 §4.6.4's limits (duplicates dropped, then static includes flattened), the `all` repaired.
// Each step is drafted from the analysis of the zone as the previous steps leave it. No I/O.
import type { SpfAnalysis, SpfNode } from "../../spf/analysis-types";
import { flattenSpf } from "../../spf/flatten";
import { spfStatus } from "../../spf/part";
import { formatSpf, parseSpf } from "../../spf/parse";
import type { Term } from "../../spf/types";
import type { Draft } from "./draft";

/** Findings that make receivers return permerror, or that only a new record can remove. */
const LIMIT_RULES = ["spf.lookup-limit", "spf.void-lookup-limit", "spf.duplicate-include"];
const BROKEN_RULES = ["spf.include-no-record", "spf.loop", "spf.redirect-no-record"];

const spfDraft = (domain: string, value: string, d: Omit<Draft, "category" | "edits" | "records">, extra: { host: string; value: string }[] = []): Draft => ({
  category: "spf",
  ...d,
  records: [{ host: domain, type: "TXT", value }, ...extra.map((e) => ({ host: e.host, type: "TXT" as const, value: e.value }))],
  edits: [{ host: domain, type: "TXT", value }, ...extra.map((e) => ({ host: e.host, type: "TXT" as const, value: e.value }))],
});

/** RFC 7208 §3.2: one record. The terms of every record in order, each once, one `all` (the first record's) last. */
export function mergeSpfRecords(records: readonly string[]): string {
  const seen = new Set<string>();
  const terms: Term[] = [];
  let all: Term | null = null;
  for (const text of records) {
    for (const t of parseSpf(text).terms) {
      if (t.kind === "mechanism" && t.name === "all") {
        all ??= t;
        continue;
      }
      if (t.kind === "modifier" && t.name === "redirect") continue;
      const key = t.raw.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      terms.push(t);
    }
  }
  return formatSpf(all ? [...terms, all] : terms);
}

/** Top-level include/redirect terms whose target has no SPF record, loops or is itself broken. */
function brokenTerms(spf: SpfAnalysis): string[] {
  const broken = (n: SpfNode | null, depth: number): boolean =>
    n !== null && depth < 12 && (n.error !== null || n.record === null || n.terms.some((t) => broken(t.child, depth + 1)));
  return (spf.tree?.terms ?? []).filter((t) => t.child !== null && broken(t.child, 0)).map((t) => t.term);
}

export function spfStep(cur: { domain: string; spf: SpfAnalysis; rules: Set<string> }): Draft | null {
  const { domain, spf } = cur;
  const status = spfStatus(spf);
  if (status === "temperror" || status === "missing") return null;
  if (spf.recordsFound.length > 1) {
    return spfDraft(domain, mergeSpfRecords(spf.recordsFound), {
      id: "spf-merge",
      title: `Merge the ${spf.recordsFound.length} SPF records into one`,
      why: "Two or more SPF records make every receiver return permerror (RFC 7208 §3.2, §4.5). Publish this one record and delete the others.",
      gate: "now",
      decision: null,
      targets: ["spf.multiple-records"],
    });
  }
  const broken = BROKEN_RULES.some((r) => cur.rules.has(r)) ? brokenTerms(spf) : [];
  if (broken.length > 0 && spf.record) {
    const drop = new Set(broken.map((t) => t.toLowerCase()));
    const kept = parseSpf(spf.record).terms.filter((t) => !drop.has(t.raw.toLowerCase()));
    return spfDraft(domain, formatSpf(kept), {
      id: "spf-broken-include",
      title: `Remove ${broken.join(", ")} from SPF`,
      why: `${broken.join(", ")} leads to a name with no SPF record or to a loop, so receivers return permerror for all of your mail (RFC 7208 §5.2, §4.6.4).`,
      gate: "decision",
      decision: `If ${broken.join(", ")} is a typo of a provider's name, correct it instead of removing it; otherwise remove it.`,
      targets: BROKEN_RULES,
    });
  }
  if (LIMIT_RULES.some((r) => cur.rules.has(r))) {
    const flat = flattenSpf(spf);
    if (!flat.ok) return null;
    const [own, ...chain] = flat.records;
    if (!own) return null;
    const flattened = flat.flattened.map((f) => f.include);
    return spfDraft(
      domain,
      own.value,
      {
        id: "spf-limits",
        title: flattened.length > 0 ? "Bring SPF within 10 DNS lookups by flattening provider includes" : "Bring SPF within 10 DNS lookups",
        why:
          `${flat.steps.join(" ")} The new record${chain.length > 0 ? "s need" : " needs"} ${flat.lookups} DNS-querying terms (limit 10, RFC 7208 §4.6.4) and authorise exactly the same addresses.` +
          (flattened.length > 0
            ? ` The service watches ${flattened.join(", ")} and alerts you with updated records when a provider changes its addresses.`
            : ""),
        gate: "now",
        decision: null,
        targets: LIMIT_RULES,
        flattened: flat.flattened,
      },
      chain.map((r) => ({ host: r.host, value: r.value })),
    );
  }
  if (spf.fix && spf.fix !== spf.record) {
    return spfDraft(domain, spf.fix, {
      id: "spf-repair",
      title: "Correct the SPF record",
      why: "The corrected record fixes each SPF finding shown (syntax, the all mechanism, terms receivers ignore).",
      gate: "now",
      decision: null,
      targets: [...cur.rules].filter((r) => r.startsWith("spf.")),
    });
  }
  return null;
}
