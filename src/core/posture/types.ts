// Shared posture shapes: categories, part statuses and findings tagged with their category. No I/O.
import type { Finding } from "../types";

export const CATEGORIES = ["spf", "dmarc", "dkim", "mx", "mta_sts", "tls_rpt", "bimi", "blacklist"] as const;
export type PostureCategory = (typeof CATEGORIES)[number];

/** Status of one published part. temperror means "unknown", never "missing". */
export type PartStatus = "present" | "missing" | "invalid" | "temperror";

export interface CategorizedFinding extends Finding {
  category: PostureCategory;
}

export const tagFindings = (category: PostureCategory, findings: readonly Finding[]): CategorizedFinding[] => findings.map((f) => ({ ...f, category }));
