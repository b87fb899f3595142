// Posture score (0..100) and grade (A+..F) from category presence and weighted findings; model in docs/scoring.md. No I/O.
import type { Severity } from "../types";
import type { CategorizedFinding, PartStatus, PostureCategory } from "./types";

export const GRADES = ["A+", "A", "B", "C", "D", "F"] as const;
export type Grade = (typeof GRADES)[number];

/** Points each category contributes to a perfect 100 (sum = 100). */
export const CATEGORY_WEIGHTS: Record<PostureCategory, number> = {
  dmarc: 30,
  spf: 20,
  dkim: 15,
  mx: 10,
  mta_sts: 10,
  tls_rpt: 5,
  bimi: 5,
  blacklist: 5,
};

/** Share of a category's weight one finding removes; a category never goes below zero. */
export const SEVERITY_FACTORS: Record<Severity, number> = { Critical: 1, High: 0.5, Medium: 0.25, Low: 0.1, Info: 0 };

/** The highest score reachable while a finding of this severity is open anywhere. */
export const SEVERITY_CAPS: Partial<Record<Severity, number>> = { Critical: 64, High: 89 };

/** "not_applicable": the category does not apply (e.g. MTA-STS on a null-MX domain). */
export type ScoredStatus = PartStatus | "not_applicable";

export interface ScoreInput {
  /** Categories left out, not_applicable or temperror carry no weight: an unknown part neither helps nor hurts. */
  statuses: Partial<Record<PostureCategory, ScoredStatus>>;
  findings: readonly CategorizedFinding[];
}

export interface CategoryScore {
  weight: number;
  earned: number;
  deducted: number;
}

export interface ScoreResult {
  /** null when no category could be assessed (every part unknown). */
  score: number | null;
  grade: Grade | null;
  categories: Partial<Record<PostureCategory, CategoryScore>>;
}

export function gradeFor(score: number): Grade {
  if (score >= 97) return "A+";
  if (score >= 90) return "A";
  if (score >= 80) return "B";
  if (score >= 70) return "C";
  if (score >= 60) return "D";
  return "F";
}

/**
 * Presence earns the category weight; each finding deducts weight × severity factor, capped at the
 * weight. The sum over assessed categories is rescaled to 100, then capped by the worst severity.
 * Every step is non-increasing in findings, so adding or worsening a finding never raises the score.
 */
export function scorePosture(input: ScoreInput): ScoreResult {
  const categories: Partial<Record<PostureCategory, CategoryScore>> = {};
  let possible = 0;
  let earned = 0;
  for (const [cat, weight] of Object.entries(CATEGORY_WEIGHTS) as [PostureCategory, number][]) {
    const status = input.statuses[cat];
    if (status === undefined || status === "not_applicable" || status === "temperror") continue;
    const base = status === "present" ? weight : 0;
    const deducted = Math.min(
      weight,
      input.findings.filter((f) => f.category === cat).reduce((sum, f) => sum + weight * SEVERITY_FACTORS[f.severity], 0),
    );
    const got = Math.max(0, base - deducted);
    categories[cat] = { weight, earned: got, deducted };
    possible += weight;
    earned += got;
  }
  if (possible === 0) return { score: null, grade: null, categories };
  let score = Math.round((100 * earned) / possible);
  for (const f of input.findings) {
    // Findings of unassessed categories still cap: a Critical DNSBL listing matters even if DMARC was unknown.
    const cap = SEVERITY_CAPS[f.severity];
    if (cap !== undefined) score = Math.min(score, cap);
  }
  return { score, grade: gradeFor(score), categories };
}
