// SPF steps of the remediation plan: one record from several, broken includes removed, the record brought
// within RFC 7208 §4.6.4's limits (duplicates dropped, then static includes flattened), the `all` repaired.
// Each step is drafted from the analysis of the zone as the previous steps leave it. No I/O.
import type { SpfAnalysis, SpfNode } from "../../spf/analysis-types";
import { flattenSpf } from "../../spf/flatten";
import { spfStatus } from "../../spf/part";
import { formatSpf, parseSpf } from "../../spf/parse";
import type { Term } from "../../spf/types";
import type { DnsFix } from "../../part/types";
import type { Draft } from "./draft";

/** Findings that make receivers return permerror, or that only a new record can remove. */
const LIMIT_RULES = ["spf.lookup-limit", "spf.void-lookup-limit", "spf.duplicate-include", "spf.lookup-nearly-spent"];
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
  // A term that loops back is not followed (no child), only noted: it breaks every include above it.
  const broken = (n: SpfNode | null, depth: number): boolean =>
    n !== null && depth < 12 && (n.error !== null || n.record === null || n.terms.some((t) => t.note === "loop" || broken(t.child, depth + 1)));
  return (spf.tree?.terms ?? []).filter((t) => t.note === "loop" || (t.child !== null && broken(t.child, 0))).map((t) => t.term);
}

/** RFC 7208 §4.6: a term that does not parse makes the whole record permerror. A well-known slip (ipv4: for
 *  ip4:) is corrected; any other such term is removed. Null when no term can be repaired that way. */
function syntaxRepair(record: string): { value: string; changes: string[] } | null {
  const bad = new Set(parseSpf(record).errors.flatMap((e) => (e.term ? [e.term] : [])));
  if (bad.size === 0) return null;
  const changes: string[] = [];
  const terms = record.split(" ").filter((t) => t !== "");
  const kept = terms.flatMap((t) => {
    if (!bad.has(t)) return [t];
    const fixed = t.replace(/^([+\-~?]?)ipv([46]):/i, "$1ip$2:");
    if (fixed !== t && parseSpf(`v=spf1 ${fixed}`).errors.length === 0) {
      changes.push(`${t} → ${fixed}`);
      return [fixed];
    }
    changes.push(`${t} removed`);
    return [];
  });
  const value = kept.join(" ");
  return parseSpf(value).errors.length === 0 ? { value, changes } : null;
}

export function spfStep(cur: { domain: string; spf: SpfAnalysis; rules: Set<string>; fixes?: readonly DnsFix[] }): Draft | null {
  const { domain, spf } = cur;
  const status = spfStatus(spf);
  if (status === "temperror") return null;
  if (status === "missing") {
    // The SPF part's own record for a domain without one: "v=spf1 -all" for a domain that sends no mail,
    // else the MX hosts with ~all, which the owner completes with each sending service (RFC 7208 §4.5).
    const fix = (cur.fixes ?? []).find((f) => f.host === domain && f.type === "TXT" && /^v=spf1(\s|$)/i.test(f.value));
    if (!fix) return null;
    const sendsNone = fix.value.trim() === "v=spf1 -all";
    return spfDraft(domain, fix.value, {
      id: "spf-publish",
      title: "Publish an SPF record",
      why: fix.reason,
      gate: sendsNone ? "now" : "decision",
      decision: sendsNone
        ? null
        : "Add an include: or ip4:/ip6: term for every service that sends mail as the domain before publishing, then tighten ~all to -all.",
      targets: ["spf.none"],
    });
  }
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
  const syntax = cur.rules.has("spf.syntax") && spf.record ? syntaxRepair(spf.record) : null;
  if (syntax) {
    return spfDraft(domain, syntax.value, {
      id: "spf-syntax",
      title: "Correct the SPF syntax error",
      why: `A term that does not parse makes receivers return permerror for all of your mail (RFC 7208 §4.6): ${syntax.changes.join(", ")}.`,
      gate: "decision",
      decision: `Check each change (${syntax.changes.join(", ")}): a removed term may have been meant for a sender you still use.`,
      targets: ["spf.syntax"],
    });
  }
  // RFC 7208 §4.6.4: a/mx terms whose names have no records match nothing and count toward the void limit.
  // Taken before flattening when the record is within the limits: removing them also saves lookups.
  const overLimits = ["spf.lookup-limit", "spf.void-lookup-limit", "spf.duplicate-include"].some((r) => cur.rules.has(r));
  const voidTerms =
    cur.rules.has("spf.void-lookup") && !overLimits ? (spf.tree?.terms ?? []).filter((t) => t.voidLookups > 0 && /^[+\-~?]?(a|mx)([:/]|$)/i.test(t.term)) : [];
  if (voidTerms.length > 0 && spf.record) {
    const drop = new Set(voidTerms.map((t) => t.term.toLowerCase()));
    const names = voidTerms.map((t) => t.term).join(", ");
    return spfDraft(domain, formatSpf(parseSpf(spf.record).terms.filter((t) => !drop.has(t.raw.toLowerCase()))), {
      id: "spf-void-terms",
      title: `Remove ${names} from SPF`,
      why: `${names} point${voidTerms.length > 1 ? "" : "s"} at names without address records: they authorise nothing and count toward the limit of 2 void lookups (RFC 7208 §4.6.4).`,
      gate: "decision",
      decision: `If ${names} should send mail, give the name${voidTerms.length > 1 ? "s" : ""} an address instead of removing ${voidTerms.length > 1 ? "them" : "it"}.`,
      targets: ["spf.void-lookup"],
    });
  }
  if (LIMIT_RULES.some((r) => cur.rules.has(r))) {
    // 450 octets: the analysis advises it so the whole DNS answer fits in 512 (RFC 7208 §3.4); 7 lookups stay
    // below the "nearly spent" finding, else the RFC's 10 (a record with terms that cannot be listed).
    const below = flattenSpf(spf, { maxRecordOctets: 450, maxLookups: 7 });
    const flat = below.ok ? below : flattenSpf(spf, { maxRecordOctets: 450 });
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
          `${flat.steps.map((x) => `${x.charAt(0).toUpperCase()}${x.slice(1)}.`).join(" ")} The new record${chain.length > 0 ? "s need" : " needs"} ${flat.lookups} DNS-querying terms (limit 10, RFC 7208 §4.6.4) and authorise exactly the same addresses.` +
          (flattened.length > 0
            ? ` The service watches ${flattened.join(", ")} and alerts you with updated records when a provider changes its addresses.`
            : ""),
        gate: "now",
        decision: null,
        targets: LIMIT_RULES,
        flattened: flat.flattened,
        // Flattening stops at the RFC limits: what it leaves near them is advice, not the permerror it removes.
        accepts: ["spf.lookup-nearly-spent", "spf.void-lookup"],
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
