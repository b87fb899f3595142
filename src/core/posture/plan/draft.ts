// A step before projection: what it publishes and which findings it means to close. No I/O.
import type { Finding } from "../../types";
import type { PartStatus } from "../../part/types";
import type { PostureCategory } from "../types";
import type { PlannedFile, ZoneEdit } from "./overlay";
import type { PlanRecord, StepGate } from "./types";

export interface Draft {
  id: string;
  category: PostureCategory;
  title: string;
  why: string;
  gate: StepGate;
  decision: string | null;
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
