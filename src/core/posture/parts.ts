// Maps each module's result to a part status, a record view and a diff snapshot for the posture. No I/O.
import type { BimiResult } from "../bimi/check";
import type { DmarcFacts } from "../bimi/record";
import type { DmarcAnalysis } from "../dmarc/analyze";
import type { BlacklistResult } from "../dnsbl/check";
import type { MtaStsResult } from "../mta-sts/check";
import type { MxResult } from "../mx/analyze";
import type { SpfAnalysis } from "../spf/analyze";
import type { TlsRptResult } from "../tls-rpt/check";
import type { PartSnapshot } from "./diff";
import type { PartStatus } from "./types";

export function spfStatus(spf: SpfAnalysis): PartStatus {
  if (spf.status === "temperror") return "temperror";
  if (spf.recordsFound.length === 0) return "missing";
  return spf.status === "permerror" || spf.recordsFound.length > 1 ? "invalid" : "present";
}

export function dmarcStatus(dmarc: DmarcAnalysis): PartStatus {
  if (dmarc.discovery.status === "temperror") return "temperror";
  if (dmarc.findings.some((f) => f.rule === "dmarc.multiple-records")) return "invalid";
  if (dmarc.discovery.status === "none" || dmarc.parsed === null) return "missing";
  return dmarc.parsed.policyApplies ? "present" : "invalid";
}

/** BIMI needs the policy that actually applies; RFC 9989 t=y downgrades it one step (§5.3). */
export function dmarcFactsForBimi(dmarc: DmarcAnalysis): DmarcFacts | null {
  const r = dmarc.parsed;
  if (r === null || dmarc.policy === null) return null;
  const p = r.t ? ({ reject: "quarantine", quarantine: "none", none: "none" } as const)[dmarc.policy] : dmarc.policy;
  return { p, sp: r.sp, pct: r.pct };
}

export const mxRecordText = (mx: MxResult): string | null =>
  mx.records.length === 0 ? null : mx.records.map((m) => `${m.preference} ${m.exchange || "."}`).join("\n");

export interface PartsInput {
  spf: SpfAnalysis;
  dmarc: DmarcAnalysis;
  mx: MxResult;
  bimi: BimiResult;
  mtaSts: MtaStsResult;
  tlsRpt: TlsRptResult;
  blacklists: BlacklistResult | null;
}

export function recordViews(p: PartsInput) {
  return {
    spf: { status: spfStatus(p.spf), host: p.spf.domain, record: p.spf.record, lookups: p.spf.lookups.total },
    dmarc: {
      status: dmarcStatus(p.dmarc),
      host: `_dmarc.${p.dmarc.discovery.policyDomain ?? p.dmarc.domain}`,
      record: p.dmarc.record,
      policy: p.dmarc.policy,
      inherited: p.dmarc.discovery.inherited,
    },
    bimi: {
      status: p.bimi.status,
      host: p.bimi.host,
      record: p.bimi.record,
      declined: p.bimi.declined,
      logo: p.bimi.parsed?.logo ?? null,
      authority: p.bimi.parsed?.authority ?? null,
    },
    mta_sts: {
      status: p.mtaSts.status,
      host: p.mtaSts.host,
      record: p.mtaSts.record,
      id: p.mtaSts.id,
      policy: {
        status: p.mtaSts.policy.status,
        failure: p.mtaSts.policy.failure,
        url: p.mtaSts.policy.url,
        mode: p.mtaSts.policy.parsed?.mode ?? null,
        max_age: p.mtaSts.policy.parsed?.maxAge ?? null,
        mx: p.mtaSts.policy.parsed?.mx ?? [],
      },
      coverage: p.mtaSts.coverage,
    },
    tls_rpt: { status: p.tlsRpt.status, host: p.tlsRpt.host, record: p.tlsRpt.record, rua: p.tlsRpt.parsed?.rua ?? [] },
    mx: { status: p.mx.status, host: p.dmarc.domain, record: mxRecordText(p.mx), null_mx: p.mx.nullMx, hosts: p.mx.hosts },
  };
}

const allQualifier = (spf: SpfAnalysis): string | null => {
  const all = spf.tree?.parsed?.mechanisms.find((m) => m.name === "all");
  return all ? `${all.qualifier}all` : null;
};

/** The comparable state of each part, for diffPostures(previous, current). */
export function postureSnapshot(p: PartsInput): Partial<Record<"spf" | "dmarc" | "bimi" | "mta_sts" | "tls_rpt" | "mx" | "blacklist", PartSnapshot>> {
  const d = p.dmarc.parsed;
  const snap: ReturnType<typeof postureSnapshot> = {
    spf: { status: spfStatus(p.spf), record: p.spf.record, fields: { all: allQualifier(p.spf) } },
    dmarc: {
      status: dmarcStatus(p.dmarc),
      record: p.dmarc.record,
      fields: d ? { p: d.p, sp: d.sp, np: d.np, pct: d.pct, rua: d.rua.map((u) => u.uri), adkim: d.adkim, aspf: d.aspf, t: d.t } : {},
    },
    bimi: { status: p.bimi.status, record: p.bimi.record },
    mta_sts: {
      status: p.mtaSts.status,
      record: p.mtaSts.record,
      fields: {
        id: p.mtaSts.id,
        mode: p.mtaSts.policy.parsed?.mode ?? null,
        mx: p.mtaSts.policy.parsed?.mx ?? [],
        max_age: p.mtaSts.policy.parsed?.maxAge ?? null,
        policy: p.mtaSts.policy.text,
      },
    },
    tls_rpt: { status: p.tlsRpt.status, record: p.tlsRpt.record },
    mx: { status: p.mx.status, record: mxRecordText(p.mx), fields: { hosts: p.mx.records.map((m) => m.exchange || ".") } },
  };
  if (p.blacklists) {
    const key = (l: { list: string; target: string }) => `${l.list}:${l.target}`;
    const allUnknown = p.blacklists.checked > 0 && p.blacklists.unknown.length === p.blacklists.checked;
    snap.blacklist = {
      status: allUnknown ? "temperror" : "present",
      record: null,
      fields: { listed: p.blacklists.listed.map(key), unknown: p.blacklists.unknown.map(key), cleared: p.blacklists.cleared.map(key) },
    };
  }
  return snap;
}
