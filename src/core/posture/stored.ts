// The posture a check row stores (checks.posture) and the single-domain view shows. Types only.
import type { DomainAnalysis } from "./analyze-domain";
import type { PostureSnapshot } from "./diff";
import type { CategorizedFinding } from "./types";

export interface StoredPosture {
  records: Record<string, unknown>;
  blacklists: DomainAnalysis["blacklists"];
  findings: CategorizedFinding[];
  recommendations: DomainAnalysis["recommendations"];
  fixes: DomainAnalysis["fixes"];
  /** Last known good snapshot per part (stale parts hold the previous check's value). */
  snapshot: PostureSnapshot;
}
