// The shapes that cross the RPC boundary of a domain's report object (docs/decisions.md D120-D122).

/** [day, sourceIp, headerFrom, disposition, dkimAligned, spfAligned, dkimDomain, dkimSelector, dkimResult, spfDomain, spfResult, messages] */
export type DmarcRowTuple = [
  string,
  string,
  string | null,
  string | null,
  0 | 1,
  0 | 1,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  number,
];

export interface DmarcIngestInput {
  orgName: string;
  reportId: string;
  email: string | null;
  version: string | null;
  /** Epoch ms. */
  dateBegin: number;
  dateEnd: number;
  /** XML records of the report. */
  records: number;
  policy: unknown;
  /** Epoch ms of arrival (a mover passes the original one). */
  receivedAt: number;
  rows: DmarcRowTuple[];
  /** New-sender candidates (D103): answered in `seenIps`. */
  probeIps?: string[];
  /** The plan's retention, kept for the alarm (D123). */
  retentionDays: number;
  /** True when no D1 step follows (a mover of already summarised data): stored as summarised. */
  summarised?: boolean;
}

export interface DayTotals {
  day: string;
  reports: number;
  messages: number;
  pass: number;
  fail: number;
  /** The day's biggest DMARC-failing sources. */
  top: Array<{ ip: string; fail: number }>;
}

export interface DmarcIngestResult {
  /**
   * "replay": stored by an earlier copy whose D1 step was not confirmed (D122); "summarising": another
   * copy holds the report's summarising lease and runs that step now (D159), so this one is a duplicate.
   */
  status: "stored" | "replay" | "duplicate" | "summarising";
  ref: number;
  receivedAt: number;
  /** Grows with every write of the object: D1 keeps the summary of the highest (D122). */
  seq: number;
  /** ABSOLUTE totals of every day the report touches (never increments: D122). */
  days: DayTotals[];
  /** The probed addresses that another report of the domain already showed. */
  seenIps: string[];
}

export interface Intake {
  reports: number;
  records: number;
  /** Reports of the given reporter (org and email) since the same instant. */
  reporterReports: number;
}

export interface DmarcWindowQuery {
  from: string;
  to: string;
  startMs: number;
  endMs: number;
  /** The domain's name (lower case), for "own SPF domain" and DKIM d= comparisons. */
  domainName: string;
  maxSources: number;
}

/** A stored report whose D1 step is replayed by the sweep (D160): what the step needs, from the object. */
export interface DmarcReplay {
  result: DmarcIngestResult;
  /** The stored report; its policy as the JSON text the object keeps. */
  report: Pick<DmarcIngestInput, "orgName" | "reportId" | "email" | "version" | "dateBegin" | "dateEnd" | "records"> & { policy: string | null };
  /** The report's rows as a JSON array of DmarcRowTuple (an RPC stub's type would widen the tuples). */
  rowsJson: string;
}
