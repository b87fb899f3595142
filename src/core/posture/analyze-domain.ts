// Full posture of one domain: every registered part starts at once and waits only for the parts it reads,
// then findings, score, fixes, views and the diff snapshot, all from the registry. I/O via ports.
import { withPriority } from "../dns/limiter";
import type { Resolver } from "../dns/types";
import type { DnsblList } from "../dnsbl/zones";
import type { mxPart } from "../mx/part";
import type { AnalyzeSettings, AnyPart, ResultOf, RunContext, SettledContext } from "../part/types";
import type { Clock, HttpFetch } from "../types";
import { buildRecommendations, type DnsFix, type Recommendation } from "./fixes";
import type { PostureSnapshot } from "./diff";
import { PARTS, type PartResults, type RecordViews } from "./registry";
import { type Grade, type ScoredStatus, scoredStatus, scorePosture } from "./score";
import { type CategorizedFinding, type PostureCategory, tagFindings } from "./types";

export interface AnalyzeOptions extends AnalyzeSettings {
  resolver: Resolver;
  fetch: HttpFetch;
  clock: Clock;
  /** DNSBL lists (default: the core set); `false` skips blocklist checks. */
  dnsbl?: DnsblList[] | false;
  timeoutMs?: number;
}

export interface DomainAnalysis {
  domain: string;
  score: number | null;
  grade: Grade | null;
  dmarc_policy: string | null;
  records: RecordViews;
  blacklists: PartResults["blacklist"];
  findings: CategorizedFinding[];
  recommendations: Recommendation[];
  fixes: DnsFix[];
  /** DNS queries sent for this analysis (cache hits excluded). */
  queries: number;
  /** Comparable state for diffPostures() against the previous check. */
  snapshot: PostureSnapshot;
  /** Each part's complete result by id (SPF tree, DMARC discovery, MTA-STS policy, ...), for detailed views. */
  parts: PartResults;
}

export async function analyzeDomain(domain: string, opts: AnalyzeOptions): Promise<DomainAnalysis> {
  const d = domain.trim().toLowerCase().replace(/\.$/, "");
  const { resolver } = opts;
  const before = resolver.queriesSent;

  // Every part starts now; one that needs another's result (BIMI the DMARC policy, MTA-STS the MX hosts,
  // blocklists the MX addresses) awaits only that promise, so each query leaves as soon as its name is known
  // or, with every connection busy, as soon as one is free and no query that others wait on is queued (D63).
  const started = new Map<string, Promise<unknown>>();
  const run: RunContext = {
    domain: d,
    resolver,
    fetch: opts.fetch,
    clock: opts.clock,
    timeoutMs: opts.timeoutMs ?? 10_000,
    settings: opts,
    result: <P extends AnyPart>(part: P) => start(part) as Promise<ResultOf<P>>,
  };
  const start = (part: AnyPart): Promise<unknown> => {
    let p = started.get(part.id);
    if (!p) {
      p = part.run(part.lookups ? { ...run, resolver: withPriority(resolver, part.lookups) } : run);
      started.set(part.id, p);
    }
    return p;
  };
  const settled = await Promise.all(PARTS.map((p) => start(p)));
  const results = Object.fromEntries(PARTS.map((p, i) => [p.id, settled[i]])) as PartResults;

  const mx = results.mx;
  const parked = mx.nullMx;
  const ctx: SettledContext = {
    domain: d,
    now: opts.clock.now(),
    settings: opts,
    nullMx: parked,
    mxHosts: mx.hosts.filter((h) => h.status === "ok").map((h) => h.host),
    result: <P extends AnyPart>(part: P) => results[part.id as PostureCategory] as ResultOf<P>,
  };
  // RFC 7505 null MX: the parts about receiving mail do not apply to a domain that receives none.
  const parkedRules = new Set(parked ? PARTS.flatMap((p: AnyPart) => p.inbound?.parkedRules ?? []) : []);
  const findings = PARTS.flatMap((p: AnyPart) => tagFindings(p.id as PostureCategory, p.findings(results[p.id as PostureCategory], ctx))).filter(
    (f) => !parkedRules.has(f.rule),
  );

  const snapshot: PostureSnapshot = {};
  const statuses: Partial<Record<PostureCategory, ScoredStatus>> = {};
  const records: Record<string, unknown> = {};
  for (const p of PARTS as readonly AnyPart[]) {
    const id = p.id as PostureCategory;
    const r = results[id];
    const snap = p.snapshot(r);
    if (snap) snapshot[id] = snap;
    const s = scoredStatus(id, p.scored(r), parked);
    if (s !== undefined) statuses[id] = s;
    if (p.view) records[id] = p.view(r, ctx);
  }
  const { score, grade } = scorePosture({ statuses, findings });

  return {
    domain: d,
    score,
    grade,
    dmarc_policy: results.dmarc.policy,
    records: records as RecordViews,
    blacklists: results.blacklist,
    findings,
    recommendations: buildRecommendations(findings),
    fixes: PARTS.flatMap((p: AnyPart) => p.fixes?.(results[p.id as PostureCategory], ctx) ?? []),
    queries: resolver.queriesSent - before,
    snapshot,
    parts: results,
  };
}

/** The MX part's result type, for callers that read the MX hosts of an analysis. */
export type MxOf = ResultOf<typeof mxPart>;
