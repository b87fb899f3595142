// Posture score (0..100) and grade (A+..F) from category presence and weighted findings; model in docs/scoring.md. No I/O.
import type { PartSnapshot, ScoredStatus } from "../part/types";
import type { Severity } from "../types";
import { PARTS, partOf } from "./registry";
import type { CategorizedFinding, PostureCategory } from "./types";

export type { ScoredStatus };

export const GRADES = ["A+", "A", "B", "C", "D", "F"] as const;
export type Grade = (typeof GRADES)[number];

/** Points each category contributes, as each part declares them (docs/scoring.md); the score rescales
 *  the assessed categories to 100. */
export const CATEGORY_WEIGHTS = Object.fromEntries(PARTS.map((p) => [p.id, p.weight])) as Record<PostureCategory, number>;

/** Share of a category's weight one finding removes; a category never goes below zero. */
export const SEVERITY_FACTORS: Record<Severity, number> = { Critical: 1, High: 0.5, Medium: 0.25, Low: 0.1, Info: 0 };

/** The highest score reachable while a finding of this severity is open anywhere. */
export const SEVERITY_CAPS: Partial<Record<Severity, number>> = { Critical: 64, High: 89 };

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

/**
 * What a part's status counts for: an insecure answer (RFC 7672 §2.2) and a part's unweighted statuses
 * carry no weight, nor does a receiving-side part that is missing on a null-MX domain (RFC 7505);
 * unknown (temperror, stale) is left out. The same rule serves a fresh analysis and a re-scored check.
 */
export function scoredStatus(cat: PostureCategory, s: PartSnapshot["status"] | null | undefined, parked: boolean): ScoredStatus | undefined {
  if (s === null || s === undefined || s === "stale" || s === "temperror") return undefined;
  const part = partOf(cat);
  if (s === "insecure" || part.unweighted?.includes(s)) return "not_applicable";
  return parked && s === "missing" && part.inbound ? "not_applicable" : s;
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
