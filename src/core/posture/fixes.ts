// Impact-ordered recommendations; the exact DNS records to publish ({host, type, value, reason}) come
// from each part's own fixes (core/posture/registry.ts). No I/O.
import type { DnsFix } from "../part/types";
import type { Severity } from "../types";
import { SEVERITIES } from "../types";
import { CATEGORY_WEIGHTS } from "./score";
import type { CategorizedFinding, PostureCategory } from "./types";

export type { DnsFix };

export interface Recommendation {
  category: PostureCategory;
  severity: Severity;
  rule: string;
  message: string;
  fix: string | null;
}

/** Findings with something to act on, most impactful first: severity, then category weight. */
export function buildRecommendations(findings: readonly CategorizedFinding[]): Recommendation[] {
  const seen = new Set<string>();
  return findings
    .filter((f) => f.severity !== "Info" || f.fix !== null)
    .filter((f) => {
      const key = `${f.category}|${f.rule}|${f.description}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || CATEGORY_WEIGHTS[b.category] - CATEGORY_WEIGHTS[a.category])
    .map((f) => ({ category: f.category, severity: f.severity, rule: f.rule, message: f.description, fix: f.fix }));
}
