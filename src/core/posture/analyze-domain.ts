// Full posture of one domain: SPF, DMARC, MX, BIMI, MTA-STS, TLS-RPT in parallel, then DNSBL; score, fixes, diff snapshot. I/O via ports.
import { checkBimi } from "../bimi/check";
import { treeWalkOrgDomain } from "../dmarc/align";
import { analyzeDmarc } from "../dmarc/analyze";
import type { Resolver } from "../dns/types";
import { blacklistFindings, checkBlacklists, type BlacklistResult } from "../dnsbl/check";
import type { DnsblList } from "../dnsbl/zones";
import { checkMtaSts } from "../mta-sts/check";
import { analyzeMx } from "../mx/analyze";
import { analyzeSpf, type SpfAnalysis } from "../spf/analyze";
import { checkTlsRpt, tlsRptPairingFindings } from "../tls-rpt/check";
import type { Clock, Finding, HttpFetch } from "../types";
import { buildFixes, buildRecommendations, type DnsFix, type Recommendation } from "./fixes";
import { dmarcFactsForBimi, dmarcStatus, type PartsInput, postureSnapshot, recordViews, spfStatus } from "./parts";
import { scorePosture, type Grade, type ScoredStatus } from "./score";
import { type CategorizedFinding, type PartStatus, type PostureCategory, tagFindings } from "./types";

export interface AnalyzeOptions {
  resolver: Resolver;
  fetch: HttpFetch;
  clock: Clock;
  /** DNSBL lists (default: the core set); `false` skips blocklist checks. */
  dnsbl?: DnsblList[] | false;
  /** Sending IPs to check besides the MX addresses (DMARC report sources, SPF ip4/ip6). */
  extraIps?: string[];
  /** Fetch and check the BIMI logo (one more HTTPS request). */
  checkBimiLogo?: boolean;
  /** DKIM state from the selector inventory, when the caller has one. */
  dkim?: { status: PartStatus; findings: Finding[] };
  dmarcRua?: string | null;
  tlsRptRua?: string | null;
  timeoutMs?: number;
  /** Local development only: policy hosts may resolve to private addresses (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivateTargets?: boolean;
}

export interface DomainAnalysis {
  domain: string;
  score: number | null;
  grade: Grade | null;
  dmarc_policy: string | null;
  records: ReturnType<typeof recordViews>;
  blacklists: BlacklistResult | null;
  findings: CategorizedFinding[];
  recommendations: Recommendation[];
  fixes: DnsFix[];
  /** DNS queries sent for this analysis (cache hits excluded). */
  queries: number;
  /** Comparable state for diffPostures() against the previous check. */
  snapshot: ReturnType<typeof postureSnapshot>;
  /** Each module's complete result (SPF tree, DMARC discovery, MTA-STS policy, ...), for detailed views. */
  parts: PartsInput;
}

/** Wave 2 runs alone, so it may use every one of a Worker's 6 simultaneous connections (docs/decisions.md D20). */
const DNSBL_CONCURRENCY = 6;

/**
 * Single addresses the domain's own SPF authorises (ip4:/32, ip6:/128, and a/mx expansions of its own
 * names): its sending hosts, checked on blocklists after the MX hosts. A provider's ranges (includes of
 * other domains) are not the team's to fix and are left out.
 */
function ownSendingHosts(spf: SpfAnalysis, domain: string): string[] {
  const own = (name: string) => name === domain || name.endsWith(`.${domain}`);
  return spf.networks
    .filter((n) => own(n.domain.toLowerCase()) && (n.cidr.endsWith("/32") || n.cidr.endsWith("/128")))
    .map((n) => n.cidr.slice(0, n.cidr.lastIndexOf("/")));
}

/** Parts that do not apply to a domain that receives no mail (RFC 7505 null MX). */
const INBOUND_ONLY = new Set(["mta_sts.missing", "tls_rpt.missing", "bimi.missing", "tls_rpt.mta-sts-without-reports"]);

export async function analyzeDomain(domain: string, opts: AnalyzeOptions): Promise<DomainAnalysis> {
  const d = domain.trim().toLowerCase().replace(/\.$/, "");
  const { resolver } = opts;
  const before = resolver.queriesSent;
  const timeoutMs = opts.timeoutMs ?? 10_000;

  // Wave 1: independent lookups run concurrently. BIMI and MTA-STS take DMARC facts and MX hosts as
  // promises, so their own DNS/HTTPS work overlaps with DMARC discovery and MX resolution.
  const mxP = analyzeMx(d, resolver);
  const dmarcP = analyzeDmarc(d, resolver);
  // Coverage is about live MX: unresolvable hosts and IP literals receive no mail anyway.
  const mxHostsP = mxP.then((m) => (m.status === "temperror" ? null : m.hosts.filter((h) => h.status === "ok" || h.status === "temperror").map((h) => h.host)));
  const [spf, dmarc, mx, bimi, mtaSts, tlsRpt] = await Promise.all([
    analyzeSpf(d, resolver),
    dmarcP,
    mxP,
    checkBimi(d, resolver, {
      dmarc: dmarcP.then(dmarcFactsForBimi),
      orgDomain: treeWalkOrgDomain(resolver),
      ...(opts.checkBimiLogo ? { fetch: opts.fetch } : {}),
      timeoutMs,
    }),
    checkMtaSts(d, resolver, { fetch: opts.fetch, mxHosts: mxHostsP, timeoutMs, allowPrivate: opts.allowPrivateTargets === true }),
    checkTlsRpt(d, resolver),
  ]);

  // Wave 2: blocklists need the MX addresses.
  const blacklists =
    opts.dnsbl === false
      ? null
      : await checkBlacklists({ domain: d, ips: [...mx.ips, ...ownSendingHosts(spf, d), ...(opts.extraIps ?? [])] }, resolver, opts.dnsbl, {
          concurrency: DNSBL_CONCURRENCY,
        });

  const parked = mx.nullMx;
  const findings: CategorizedFinding[] = [
    ...tagFindings("spf", spf.findings),
    ...tagFindings("dmarc", dmarc.findings),
    ...tagFindings("mx", mx.findings),
    ...tagFindings("bimi", bimi.findings),
    ...tagFindings("mta_sts", mtaSts.findings),
    ...tagFindings("tls_rpt", [...tlsRpt.findings, ...tlsRptPairingFindings(tlsRpt.status, mtaSts.status)]),
    ...tagFindings("dkim", opts.dkim?.findings ?? []),
    ...tagFindings("blacklist", blacklists ? blacklistFindings(blacklists) : []),
  ].filter((f) => !(parked && INBOUND_ONLY.has(f.rule)));

  const parts = { spf, dmarc, mx, bimi, mtaSts, tlsRpt, blacklists };
  const snapshot = postureSnapshot(parts);
  const inbound = (s: PartStatus): ScoredStatus => (parked && s === "missing" ? "not_applicable" : s);
  const statuses: Partial<Record<PostureCategory, ScoredStatus>> = {
    spf: spfStatus(spf),
    dmarc: dmarcStatus(dmarc),
    mx: mx.status,
    mta_sts: inbound(mtaSts.status),
    tls_rpt: inbound(tlsRpt.status),
    bimi: inbound(bimi.status),
    ...(snapshot.blacklist ? { blacklist: snapshot.blacklist.status === "present" ? "present" : "temperror" } : {}),
    ...(opts.dkim ? { dkim: opts.dkim.status } : {}),
  };
  const { score, grade } = scorePosture({ statuses, findings });

  const fixes = buildFixes(
    {
      domain: d,
      nullMx: parked,
      mxHosts: mx.hosts.filter((h) => h.status === "ok").map((h) => h.host),
      spf: { status: spfStatus(spf), record: spf.record, suggested: spf.fix },
      dmarc: {
        status: dmarcStatus(dmarc),
        record: dmarc.record,
        p: dmarc.parsed?.p ?? null,
        sp: dmarc.parsed?.sp ?? null,
        pct: dmarc.parsed?.pct ?? null,
        rua: dmarc.parsed?.rua.map((u) => u.uri) ?? [],
      },
      mtaSts: { status: mtaSts.status, uncovered: mtaSts.coverage.filter((c) => !c.covered).map((c) => c.host) },
      tlsRpt: { status: tlsRpt.status },
    },
    { now: opts.clock.now(), dmarcRua: opts.dmarcRua ?? null, tlsRptRua: opts.tlsRptRua ?? null },
  );

  return {
    domain: d,
    score,
    grade,
    dmarc_policy: dmarc.policy,
    records: recordViews(parts),
    blacklists,
    findings,
    recommendations: buildRecommendations(findings),
    fixes,
    queries: resolver.queriesSent - before,
    snapshot,
    parts,
  };
}
