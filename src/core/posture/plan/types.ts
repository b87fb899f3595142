// Shapes of the remediation plan: ordered steps, each with the exact records to publish, the findings it
// closes and the score it leads to (docs/scoring.md "Remediation plan"). No I/O.
import type { Grade } from "../score";
import type { PostureCategory } from "../types";

/** One record to publish. TXT values longer than 255 octets are given as their character-strings too
 *  (RFC 1035 §3.3.14: each string holds at most 255 octets; receivers join them, RFC 7208 §3.3). */
export interface PlanRecord {
  host: string;
  type: "TXT" | "MX" | "CNAME";
  value: string;
  /** TXT: the character-strings to enter (one when the value fits); null for other types. */
  strings: string[] | null;
}

/** A file the owner serves over HTTPS (the MTA-STS policy, RFC 8461 §3.2). */
export interface PlanFile {
  url: string;
  content_type: string;
  body: string;
}

/**
 * When a step can be taken: "now" (publish it), "after_reports" (the DMARC evidence rule must hold first),
 * "decision" (a person must decide or act first: which senders are legitimate, rotate a key in the signer).
 */
export type StepGate = "now" | "after_reports" | "decision";

export interface PlanStep {
  id: string;
  category: PostureCategory;
  title: string;
  why: string;
  gate: StepGate;
  /** What a person must decide or do before publishing; null when nothing. */
  decision: string | null;
  records: PlanRecord[];
  /** Records to delete (an MX host that does not resolve, a duplicate record). */
  remove: PlanRecord[];
  files: PlanFile[];
  /** Finding rules open before this step and gone after it (computed by projection). */
  closes: string[];
  /** Score and grade after this step and every step before it (computed by projection). */
  score_after: number | null;
  grade_after: Grade | null;
}

export interface RemediationPlan {
  score: number | null;
  grade: Grade | null;
  steps: PlanStep[];
  /** After every step. */
  final: { score: number | null; grade: Grade | null };
  /** What stands between the plan's end and grade A, in words (decisions, waits, findings DNS cannot fix). */
  blockers: string[];
  /** Findings above Info still open after the plan. */
  unresolved: { category: PostureCategory; rule: string; severity: string; message: string }[];
}
