// A step before projection: what it publishes and which findings it means to close. No I/O.
import type { Finding } from "../../types";
import type { PartStatus } from "../../part/types";
import type { PlannedFile, ZoneEdit } from "./overlay";
import type { PlanRecord, PlanStep } from "./types";

/** The step as it will be shown, less what the projection computes (closes, the score after). */
export interface Draft extends Pick<PlanStep, "id" | "category" | "title" | "why" | "gate" | "decision"> {
  records: Omit<PlanRecord, "strings">[];
  remove?: Omit<PlanRecord, "strings">[];
  files?: PlannedFile[];
  /** What the projection applies: the records, and what only the projection needs (a policy host's address). */
  edits: ZoneEdit[];
  /** The DKIM state after the step (DKIM comes from the selector inventory, not from one DNS answer). */
  dkim?: { status: PartStatus; findings: Finding[] };
  /** Findings the step may open because a later step of the plan closes them (MTA-STS testing before enforce). */
  accepts?: string[];
  /** Finding rules the step is meant to close; a step that closes none of them is dropped. */
  targets: string[];
  /** SPF includes the step flattens, with the networks each stood for (watched by later checks). */
  flattened?: { include: string; cidrs: string[] }[];
}
