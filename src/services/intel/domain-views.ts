// Response views of a domain analysis: the summary and the complete (full=1) view. Pure, no I/O.
import type { DomainAnalysis } from "../../core/posture/analyze-domain";
import type { RemediationPlan } from "../../core/posture/plan/types";
import type { BaseView } from "../../core/part/types";
import type { RecordViews } from "../../core/posture/registry";
import type { SpfNode } from "../../core/spf/analyze";

export function blacklistSummary(a: DomainAnalysis) {
  const b = a.blacklists;
  if (!b) return { status: "not_checked" as const, checked: 0, listed: [], unknown: 0 };
  const status = b.listed.length > 0 ? ("listed" as const) : b.checked > 0 && b.unknown.length === b.checked ? ("unknown" as const) : ("clean" as const);
  return {
    status,
    checked: b.checked,
    unknown: b.unknown.length,
    listed: b.listed.map((l) => ({ list: l.list, zone: l.zone, kind: l.kind, target: l.target, reasons: l.reasons, severity: l.severity })),
  };
}

export function summaryView(a: DomainAnalysis, plan: RemediationPlan) {
  // Every part with a record view, as the registry lists them: status and record only.
  const records = Object.fromEntries(Object.entries(a.records).map(([id, v]: [string, BaseView]) => [id, { status: v.status, record: v.record }])) as {
    [K in keyof RecordViews]: { status: RecordViews[K]["status"]; record: string | null };
  };
  return {
    view: "summary" as const,
    domain: a.domain,
    score: a.score,
    grade: a.grade,
    dmarc_policy: a.parts.dmarc.policy,
    records,
    blacklists: blacklistSummary(a),
    plan,
    recommendations: a.recommendations,
    fixes: a.fixes,
  };
}

interface FlatNode {
  domain: string;
  via: SpfNode["via"];
  depth: number;
  parent: string | null;
  record: string | null;
  lookups: number;
  error: string | null;
}

/** The include/redirect tree, depth first, as a flat list with parent links. */
function flattenSpf(node: SpfNode | null, depth = 0, parent: string | null = null, out: FlatNode[] = []): FlatNode[] {
  if (!node) return out;
  out.push({ domain: node.domain, via: node.via, depth, parent, record: node.record, lookups: node.lookups, error: node.error });
  for (const t of node.terms) flattenSpf(t.child, depth + 1, node.domain, out);
  return out;
}

export function fullView(a: DomainAnalysis, plan: RemediationPlan) {
  const { spf, dmarc, mta_sts: mtaSts } = a.parts;
  const d = dmarc.parsed;
  return {
    ...summaryView(a, plan),
    view: "full" as const,
    records: a.records,
    blacklists: blacklistSummary(a),
    blacklist_details: a.blacklists,
    findings: a.findings,
    spf: {
      status: spf.status,
      status_reason: spf.statusReason,
      records_found: spf.recordsFound,
      lookups: {
        total: spf.lookups.total,
        limit: spf.lookups.limit,
        truncated: spf.lookups.truncated,
        by_term: spf.lookups.byTerm.map((t) => ({
          term: t.term,
          position: t.position,
          lookups: t.lookups,
          void_lookups: t.voidLookups,
          dynamic: t.dynamic,
          note: t.note,
          target: t.child?.domain ?? null,
        })),
      },
      void_lookups: spf.voidLookups,
      tree: flattenSpf(spf.tree),
      networks: spf.networks,
      dynamic: spf.dynamic,
      temperror: spf.temperror,
      suggested_record: spf.fix,
    },
    dmarc: {
      discovery: {
        status: dmarc.discovery.status,
        policy_domain: dmarc.discovery.policyDomain,
        org_domain: dmarc.discovery.orgDomain,
        inherited: dmarc.discovery.inherited,
        queries: dmarc.discovery.queries,
        temperror: dmarc.discovery.temperror,
        steps: dmarc.discovery.steps.map((s) => ({
          domain: s.domain,
          name: s.result.name,
          result: s.result.kind,
          record: s.result.kind === "record" ? s.result.record : null,
        })),
      },
      tags: d
        ? {
            p: d.p,
            sp: d.sp,
            np: d.np,
            t: d.t,
            psd: d.psd,
            adkim: d.adkim,
            aspf: d.aspf,
            rua: d.rua.map((u) => u.uri),
            ruf: d.ruf.map((u) => u.uri),
            fo: d.fo,
            pct: d.pct,
            rf: d.rf,
            ri: d.ri,
            effective: d.effective,
          }
        : null,
      suggested_record: dmarc.fix,
    },
    mta_sts: { policy_text: mtaSts.policy.text },
    queries: a.queries,
  };
}
