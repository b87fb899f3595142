// The posture a check row stores (checks.posture) and the single-domain view shows, and its JSON text as the
// domain's object keeps it (docs/decisions.md D134). No I/O.
import type { DomainAnalysis } from "./analyze-domain";
import type { PostureSnapshot } from "./diff";
import type { RemediationPlan } from "./plan/types";
import type { CategorizedFinding } from "./types";

export interface StoredPosture {
  records: Record<string, unknown>;
  blacklists: DomainAnalysis["blacklists"];
  findings: CategorizedFinding[];
  recommendations: DomainAnalysis["recommendations"];
  fixes: DomainAnalysis["fixes"];
  /** Last known good snapshot per part (stale parts hold the previous check's value). */
  snapshot: PostureSnapshot;
  /** The remediation plan of this check (absent in checks stored before plans existed). */
  plan?: RemediationPlan;
  /** SPF includes the plan flattens and the networks each stood for: later checks compare them. */
  flattened?: { include: string; cidrs: string[] }[];
  /** Flattened includes the domain has published, watched for provider changes (docs/decisions.md D173). */
  watch?: { include: string; cidrs: string[] }[];
}

/** The posture JSON text a domain's object keeps, as the stored posture it was written from. */
export const parsePosture = (text: string | null): StoredPosture | null => (text === null ? null : (JSON.parse(text) as StoredPosture));
