// A recorded posture change (category, field, before, after) said in words, for people: the drift
// alert's title and the domain page's list of changes ("DMARC policy changed from none to quarantine",
// never "dmarc p"). The field names are those the parts' snapshots declare (core/<topic>/part.ts) and
// the DKIM inventory's `selector:` / `record:` fields (services/checks/changes.ts). No I/O.
import { PARTS } from "./registry";

const FIELD_WORDS: Record<string, Record<string, string>> = {
  // RFC 9989 tags: p, sp, np, pct (t replaces pct), rua, adkim, aspf.
  dmarc: {
    p: "policy",
    sp: "subdomain policy",
    np: "policy for non-existent subdomains",
    pct: "percentage of mail the policy applies to",
    t: "testing flag",
    rua: "aggregate report addresses",
    adkim: "DKIM alignment",
    aspf: "SPF alignment",
  },
  // RFC 7208 §5.1: the "all" mechanism's qualifier.
  spf: { all: "catch-all rule" },
  mx: { hosts: "mail servers" },
  // RFC 8461 §3.2: the policy's id, mode, mx patterns and max_age.
  mta_sts: { id: "policy id", mode: "mode", mx: "MX patterns", max_age: "policy lifetime", policy: "policy file" },
  dane: { hosts: "TLSA hosts" },
};

/** The part's name as people know it ("MTA-STS"); an unknown part is upper-cased. */
/** The part's own label (core/posture/registry.ts); an unknown category in capitals. */
export const partWords = (category: string): string => PARTS.find((p) => p.id === category)?.label ?? category.toUpperCase().replace(/_/g, "-");

/** A field's name in words ("policy" for dmarc p); an unknown field keeps its name with spaces. */
export const fieldWords = (category: string, field: string): string => FIELD_WORDS[category]?.[field] ?? field.replace(/_/g, " ");

/** A stored value for a sentence: a list (stored as JSON) joined, a long value left out (null). */
function shown(v: string | null): string | null {
  if (v === null || v === "") return "none";
  let text = v;
  if (v.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(v);
      if (Array.isArray(parsed)) text = parsed.length === 0 ? "none" : parsed.map(String).join(", ");
    } catch {
      // Not JSON after all: shown as stored.
    }
  }
  return text.length > 60 ? null : text;
}

/** One change as a sentence, without the domain's name. */
export function changeSentence(category: string, field: string, before: string | null, after: string | null): string {
  const part = partWords(category);
  if (category === "dkim") {
    const [kind, ...rest] = field.split(":");
    const selector = rest.join(":");
    if (kind === "record") return `DKIM record of selector ${selector} changed`;
    if (kind === "selector") {
      if (before === null) return `DKIM selector ${selector} added`;
      if (after === null) return `DKIM selector ${selector} removed`;
      if (after === "revoked") return `DKIM key of selector ${selector} revoked`;
      return `DKIM key of selector ${selector} rotated`;
    }
  }
  if (category === "blacklist") {
    const [list, ...rest] = field.split(":");
    const target = rest.join(":");
    return after === "listed" ? `${target} listed on ${list}` : `${target} removed from ${list}`;
  }
  if (category === "mta_sts" && field === "id_unchanged") return "MTA-STS policy changed without a new policy id (senders keep the cached one)";
  if (field === "record") return `${part} record changed`;
  if (field === "status") {
    if (after === "present") return `${part} record published`;
    if (after === "missing") return `${part} record removed`;
    if (after === "invalid") return `${part} record became invalid`;
    return `${part} status changed from ${before ?? "none"} to ${after ?? "none"}`;
  }
  const what = `${part} ${fieldWords(category, field)}`;
  const b = shown(before);
  const a = shown(after);
  if (b === null || a === null) return `${what} changed`;
  if (before === null) return `${what} set to ${a}`;
  if (after === null) return `${what} removed (was ${b})`;
  return `${what} changed from ${b} to ${a}`;
}
