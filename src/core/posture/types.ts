// Shared posture shapes: categories (the registry's part ids), part statuses and findings tagged with their category. No I/O.
import type { PartStatus } from "../part/types";
import type { Finding } from "../types";
import { CATEGORIES, type PostureCategory } from "./registry";

export { CATEGORIES };
export type { PartStatus, PostureCategory };

export interface CategorizedFinding extends Finding {
  category: PostureCategory;
}

export const tagFindings = (category: PostureCategory, findings: readonly Finding[]): CategorizedFinding[] => findings.map((f) => ({ ...f, category }));
