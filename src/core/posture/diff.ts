// Differences between two posture snapshots with a severity each, by the rules each part declares
// (core/posture/registry.ts); unknown (temperror/stale) parts yield none. No I/O.
import type { FieldValue, PartSnapshot } from "../part/types";
import type { Severity } from "../types";
import { partOf } from "./registry";
import type { PostureCategory } from "./types";

export type { FieldValue, PartSnapshot };

export type PostureSnapshot = Partial<Record<PostureCategory, PartSnapshot>>;

export interface PostureChange {
  category: PostureCategory;
  field: string;
  before: FieldValue;
  after: FieldValue;
  severity: Severity;
}

const unknown = (p: PartSnapshot | undefined): boolean => p === undefined || p.status === "temperror" || p.status === "stale";

const same = (a: FieldValue | undefined, b: FieldValue | undefined): boolean =>
  JSON.stringify(Array.isArray(a) ? [...a].sort() : (a ?? null)) === JSON.stringify(Array.isArray(b) ? [...b].sort() : (b ?? null));

export function diffPostures(previous: PostureSnapshot, current: PostureSnapshot): PostureChange[] {
  const out: PostureChange[] = [];
  for (const cat of Object.keys(current) as PostureCategory[]) {
    const prev = previous[cat];
    const curr = current[cat];
    const part = partOf(cat);
    if (prev === undefined || curr === undefined || unknown(prev) || unknown(curr) || part === undefined) continue;
    if (part.diff) {
      out.push(...part.diff(prev, curr).map((c) => ({ category: cat, ...c })));
      continue;
    }
    if (prev.status !== curr.status) {
      // Losing a part weighs by the part (DMARC/SPF/MX/DKIM carry delivery or spoofing risk, the rest less).
      const severity: Severity = curr.status === "present" ? "Info" : prev.status === "present" ? part.removal : "Medium";
      out.push({ category: cat, field: "status", before: prev.status, after: curr.status, severity });
    }
    if (prev.record !== curr.record && prev.record !== null && curr.record !== null) {
      out.push({ category: cat, field: "record", before: prev.record, after: curr.record, severity: part.recordChange });
    }
    const names = new Set([...Object.keys(prev.fields ?? {}), ...Object.keys(curr.fields ?? {})]);
    for (const field of names) {
      const b = prev.fields?.[field] ?? null;
      const a = curr.fields?.[field] ?? null;
      if (same(b, a)) continue;
      out.push({ category: cat, field, before: b, after: a, severity: part.fieldSeverity?.(field, b, a) ?? "Low" });
    }
    for (const c of part.extraChanges?.(prev, curr) ?? []) out.push({ category: cat, ...c });
  }
  return out;
}
