// A stored report as its D1 step needs it, rebuilt from the domain's object when no copy of the report
// is at hand (the sweep, docs/decisions.md D160). The object keeps the aggregated rows, not the XML:
// selector evidence is rebuilt from the rows' DKIM results, which is what the inventory reads
// (dkim-evidence.ts keeps d=, selector and message count). No I/O.
import type { AggregateRow, ParsedReport, PolicyPublished, SchemaVersion, SelectorEvidence } from "../../core/reports";
import type { DmarcReplay, DmarcRowTuple } from "../../durable-objects/domain-store/types";

/** Source addresses kept per selector, as the parser keeps them. */
const SELECTOR_IPS = 10;

const NO_POLICY: PolicyPublished = {
  domain: "",
  adkim: null,
  aspf: null,
  p: null,
  sp: null,
  np: null,
  pct: null,
  fo: null,
  testing: null,
  discoveryMethod: null,
};

function policyOf(text: string | null): PolicyPublished {
  if (text === null) return NO_POLICY;
  try {
    return { ...NO_POLICY, ...(JSON.parse(text) as Partial<PolicyPublished>) };
  } catch {
    return NO_POLICY;
  }
}

export function parsedFromStore(replay: DmarcReplay): ParsedReport {
  const { report } = replay;
  // The object built each row as a DmarcRowTuple (dmarc-write.ts replayOf).
  const tuples = JSON.parse(replay.rowsJson) as DmarcRowTuple[];
  const rows: AggregateRow[] = tuples.map((t) => ({
    day: t[0],
    sourceIp: t[1],
    headerFrom: t[2] ?? "",
    envelopeFrom: null,
    disposition: t[3] ?? "",
    dmarcDkim: t[4] === 1 ? "pass" : "fail",
    dmarcSpf: t[5] === 1 ? "pass" : "fail",
    overrideReason: null,
    dkimDomain: t[6],
    dkimSelector: t[7],
    dkimResult: t[8],
    spfDomain: t[9],
    spfResult: t[10],
    messages: t[11],
  }));
  const selectors = new Map<string, SelectorEvidence>();
  for (const r of rows) {
    if (r.dkimDomain === null || r.dkimSelector === null) continue;
    const key = `${r.dkimDomain} ${r.dkimSelector}`;
    const s = selectors.get(key) ?? { domain: r.dkimDomain, selector: r.dkimSelector, messages: 0, pass: 0, fail: 0, sourceIps: [], sourceIpsTruncated: false };
    s.messages += r.messages;
    if (r.dkimResult === "pass") s.pass += r.messages;
    else s.fail += r.messages;
    if (!s.sourceIps.includes(r.sourceIp)) {
      if (s.sourceIps.length < SELECTOR_IPS) s.sourceIps.push(r.sourceIp);
      else s.sourceIpsTruncated = true;
    }
    selectors.set(key, s);
  }
  const messages = rows.reduce((n, r) => n + r.messages, 0);
  const version: SchemaVersion = report.version === "2.0" ? "2.0" : "1.0";
  return {
    version,
    metadata: {
      orgName: report.orgName,
      email: report.email,
      extraContactInfo: null,
      reportId: report.reportId,
      begin: Math.floor(report.dateBegin / 1000),
      end: Math.floor(report.dateEnd / 1000),
      errors: [],
      generator: null,
    },
    policy: policyOf(report.policy),
    rows,
    selectors: [...selectors.values()],
    totals: { records: report.records, messages, overflowRecords: 0, overflowMessages: 0 },
    warnings: [],
  };
}
