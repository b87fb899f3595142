// Merges a check's posture with the last good one: temperror parts keep the last known value, marked stale. No I/O.
import type { DomainAnalysis } from "../../core/posture/analyze-domain";
import type { PartSnapshot, PostureSnapshot } from "../../core/posture/diff";
import { scoredStatus, scorePosture, type ScoredStatus } from "../../core/posture/score";
import type { PartStatus, PostureCategory } from "../../core/posture/types";

import type { PlanOutput } from "../../core/posture/plan/build";
import type { StoredPosture } from "../../core/posture/stored";
import type { WatchedInclude } from "../../core/spf/watch";

export type { StoredPosture };

export interface MergedPosture {
  stored: StoredPosture;
  /** The current side for diffPostures(): stale parts have status "stale", so they yield no change. */
  forDiff: PostureSnapshot;
  stale: PostureCategory[];
  score: number | null;
  grade: string | null;
  dmarcPolicy: string | null;
}

function listKeys(p: PartSnapshot | undefined, field: string): string[] {
  const v = p?.fields?.[field];
  return Array.isArray(v) ? v : [];
}

/**
 * `dkimStale`: the DKIM inventory could not refresh. A part that is temperror now and has a previous
 * value is carried over; one without a previous value stays temperror (unknown). Blacklist listings
 * whose query is unknown now stay listed, so a flapping resolver never reads as delisted and relisted.
 */
export function mergePosture(
  a: DomainAnalysis,
  previous: StoredPosture | null,
  prevPolicy: string | null,
  dkim: PartStatus | null,
  plan: PlanOutput | null = null,
  watch: WatchedInclude[] = [],
): MergedPosture {
  const dkimStale = dkim === null || dkim === "temperror";
  const current: PostureSnapshot = a.snapshot;
  const snapshot: PostureSnapshot = { ...current };
  const forDiff: PostureSnapshot = { ...current };
  const records: Record<string, unknown> = { ...a.records };
  let findings = [...a.findings];
  const stale: PostureCategory[] = [];

  for (const cat of Object.keys(current) as PostureCategory[]) {
    const part = current[cat];
    const last = previous?.snapshot[cat];
    if (part?.status !== "temperror") continue;
    stale.push(cat);
    if (!last) continue;
    snapshot[cat] = last;
    forDiff[cat] = { ...last, status: "stale" };
    const view = previous.records[cat];
    if (view && typeof view === "object") records[cat] = { ...view, stale: true };
    findings = [...findings.filter((f) => f.category !== cat), ...previous.findings.filter((f) => f.category === cat)];
  }
  const bl = snapshot.blacklist;
  if (bl && bl.status !== "temperror" && previous?.snapshot.blacklist) {
    const unknown = new Set(listKeys(bl, "unknown"));
    const kept = listKeys(previous.snapshot.blacklist, "listed").filter((k) => unknown.has(k));
    snapshot.blacklist = { ...bl, fields: { ...bl.fields, listed: [...new Set([...listKeys(bl, "listed"), ...kept])] } };
  }
  // DKIM changes come from the selector inventory's own events, so the dkim part is kept for scoring only.
  const lastDkim = previous?.snapshot.dkim;
  if (!dkimStale) snapshot.dkim = { status: dkim, record: null };
  else if (lastDkim) snapshot.dkim = lastDkim;
  if (dkimStale) {
    stale.push("dkim");
    if (previous) findings = [...findings.filter((f) => f.category !== "dkim"), ...previous.findings.filter((f) => f.category === "dkim")];
  }

  let { score, grade } = a;
  if (stale.length > 0 && previous) {
    // Re-score with the carried statuses, so a resolver hiccup does not move the score.
    const parked = a.records.mx.null_mx;
    const statuses: Partial<Record<PostureCategory, ScoredStatus>> = {};
    for (const cat of Object.keys(snapshot) as PostureCategory[]) {
      const s = scoredStatus(cat, snapshot[cat]?.status, parked);
      if (s !== undefined) statuses[cat] = s;
    }
    const r = scorePosture({ statuses, findings });
    score = r.score;
    grade = r.grade;
  }
  const dmarcPolicy = stale.includes("dmarc") && previous ? prevPolicy : a.dmarc_policy;
  return {
    stored: {
      records,
      blacklists: a.blacklists,
      findings,
      recommendations: a.recommendations,
      fixes: a.fixes,
      snapshot,
      ...(plan ? { plan: planView(plan, score, grade), flattened: plan.flattened } : {}),
      ...(watch.length > 0 ? { watch } : {}),
    },
    forDiff,
    stale,
    score,
    grade,
    dmarcPolicy,
  };
}

/** The stored plan starts from the check's own score (stale parts carried over may move it). */
function planView(plan: PlanOutput, score: number | null, grade: string | null): StoredPosture["plan"] {
  const { flattened: _watched, ...view } = plan;
  return { ...view, score, grade: grade as PlanOutput["grade"] };
}
