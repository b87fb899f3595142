// Scheduled comparison of flattened SPF includes with what their providers publish now (docs/decisions.md
// D173): the check looks each watched include up and raises a drift alert with the updated record when a
// provider added or retired ranges. A lookup that fails tells nothing, so it never alerts. Does DNS I/O.
import type { Resolver } from "../../core/dns/types";
import type { StoredPosture } from "../../core/posture/stored";
import { analyzeSpf, type SpfAnalysis } from "../../core/spf/analyze";
import { adoptFlattenings, rewatch, type WatchChange, type WatchedInclude, watchedChange } from "../../core/spf/watch";
import type { AlertDraft } from "../alerts/types";

export async function watchFlattenedIncludes(
  previous: StoredPosture | null,
  spf: SpfAnalysis,
  resolver: Resolver,
): Promise<{ watch: WatchedInclude[]; changes: WatchChange[] }> {
  const watched = adoptFlattenings(previous?.watch ?? [], previous?.flattened ?? [], spf);
  if (watched.length === 0 || spf.record === null) return { watch: watched, changes: [] };
  const published = spf.record;
  const seen = await Promise.all(watched.map(async (w) => ({ w, change: watchedChange(w, await analyzeSpf(w.include, resolver), published) })));
  const watch: WatchedInclude[] = [];
  const changes: WatchChange[] = [];
  for (const { w, change } of seen) {
    const next = change ? rewatch(w, change, spf) : w;
    watch.push(next);
    // Still the old ranges: the published record does not carry the provider's change yet.
    if (change && next === w) changes.push(change);
  }
  return { watch, changes };
}

export function flattenedAlert(ctx: { teamId: number; domain: { id: number; name: string } }, c: WatchChange): AlertDraft {
  const what = [c.added.length > 0 ? `added ${c.added.join(", ")}` : "", c.removed.length > 0 ? `retired ${c.removed.join(", ")}` : ""]
    .filter(Boolean)
    .join(" and ");
  return {
    teamId: ctx.teamId,
    domain: ctx.domain,
    kind: "drift",
    subject: `spf.flattened:${c.include}`,
    severity: c.added.length > 0 ? "High" : "Medium",
    title: `${c.include} changed its addresses: update the flattened SPF record of ${ctx.domain.name}`,
    body: `Your SPF record lists the addresses of ${c.include} instead of including it; the provider ${what}. ${c.added.length > 0 ? "Mail from the new addresses fails SPF until you publish" : "Publish"} this record at ${ctx.domain.name}: ${c.record}`,
  };
}
