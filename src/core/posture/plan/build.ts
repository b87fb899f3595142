// Builds the remediation plan: drafts one step at a time from the zone as the steps before it leave it, and
// projects each by running the same posture analysis and scoring on the check's answers with the step's
// records applied (docs/scoring.md "Remediation plan"). A step that closes none of its findings, adds a
// finding or lowers the score is left out. I/O only through the injected ports (answers are remembered,
// so a projection asks the network nothing the check did not ask).
import { dmarcRamp, type DmarcEvidence } from "../../dmarc/ramp";
import type { AnalyzeSettings } from "../../part/types";
import { splitTxtStrings } from "../../spf/flatten";
import { analyzeDomain, type AnalyzeOptions, type DomainAnalysis } from "../analyze-domain";
import type { Draft } from "./draft";
import { dkimSetupStep, dkimStep, dmarcStep, mtaStsEnforceStep, mtaStsStep, mxStep, partFixStep } from "./other-steps";
import { memoFetch, memoResolver, overlayFetch, overlayResolver, type PlannedFile, type ZoneEdit, txtKind } from "./overlay";
import { spfStep } from "./spf-steps";
import type { PlanRecord, PlanStep, RemediationPlan } from "./types";

export type { RemediationPlan, PlanStep, PlanRecord } from "./types";

/** The analysis options with DNS answers and fetched files remembered: analyse with these, then plan with them. */
export function plannable<T extends AnalyzeOptions>(opts: T): T {
  return { ...opts, resolver: memoResolver(opts.resolver), fetch: memoFetch(opts.fetch) };
}

export interface PlanInput {
  analysis: DomainAnalysis;
  /** The options the analysis ran with (through plannable()). */
  options: AnalyzeOptions;
  /** What the domain's DMARC reports say; null when there are none to read (a domain not monitored). */
  evidence: DmarcEvidence | null;
}

export interface PlanOutput extends RemediationPlan {
  /** SPF includes the plan flattens, with the networks each stood for, for the scheduled comparison. */
  flattened: { include: string; cidrs: string[] }[];
}

const plain = (r: Omit<PlanRecord, "strings">): PlanRecord => ({ ...r, strings: r.type === "TXT" ? splitTxtStrings(r.value) : null });

/** A later record replaces an earlier one of its kind at the same name (MX: the whole set). */
function mergeEdits(edits: readonly ZoneEdit[], more: readonly ZoneEdit[]): ZoneEdit[] {
  const same = (a: ZoneEdit, b: ZoneEdit) => a.host === b.host && a.type === b.type && (a.type !== "TXT" || txtKind(a.value) === txtKind(b.value));
  return [...edits.filter((e) => !more.some((m) => same(e, m))), ...more];
}

const ruleSet = (a: DomainAnalysis) => new Set(a.findings.map((f) => f.rule));
const gradeRank = (g: string | null) => ["A+", "A", "B", "C", "D", "F"].indexOf(g ?? "F");

export async function buildRemediationPlan(input: PlanInput): Promise<PlanOutput> {
  const { analysis, options, evidence } = input;
  const domain = analysis.domain;
  const now = options.clock.now();
  const dmarc = analysis.parts.dmarc;
  // Without the service's address (a domain not monitored), aggregate reports go to the owner's own mailbox,
  // as the TLS-RPT fix does: a record without rua is a finding the plan must close (RFC 9989 §5.3). A domain
  // with null MX receives nothing, so it gets no such address.
  const ownRua = analysis.parts.mx.nullMx || (dmarc.parsed?.rua ?? []).some((u) => u.valid) ? null : `mailto:dmarc-reports@${domain}`;
  const ramp =
    dmarc.discovery.status === "temperror"
      ? []
      : dmarcRamp({ parsed: dmarc.parsed, nullMx: analysis.parts.mx.nullMx, reportRua: options.dmarcRua ?? ownRua, evidence });

  let cur = analysis;
  let edits: ZoneEdit[] = [];
  let files: PlannedFile[] = [];
  let dkim: AnalyzeSettings["dkim"] = options.dkim;
  const steps: PlanStep[] = [];
  const flattened: PlanOutput["flattened"] = [];

  const tryStep = async (draft: Draft | null, keep = false): Promise<void> => {
    if (!draft) return;
    const nextEdits = mergeEdits(edits, draft.edits);
    const nextFiles = [...files.filter((f) => !(draft.files ?? []).some((d) => d.url === f.url)), ...(draft.files ?? [])];
    const nextDkim = draft.dkim ?? dkim;
    const next = await analyzeDomain(domain, {
      ...options,
      resolver: overlayResolver(options.resolver, nextEdits),
      fetch: overlayFetch(options.fetch, nextFiles),
      dkim: nextDkim,
    });
    const before = ruleSet(cur);
    const after = ruleSet(next);
    const closes = [...before].filter((r) => !after.has(r));
    const added = next.findings.filter((f) => !before.has(f.rule) && f.severity !== "Info" && !(draft.accepts ?? []).includes(f.rule));
    const worse = (next.score ?? 0) < (cur.score ?? 0) || gradeRank(next.grade) > gradeRank(cur.grade);
    if (worse || added.length > 0) return;
    if (!keep && !draft.targets.some((t) => closes.includes(t))) return;
    steps.push({
      id: draft.id,
      category: draft.category,
      title: draft.title,
      why: draft.why,
      gate: draft.gate,
      decision: draft.decision,
      records: draft.records.map(plain),
      remove: (draft.remove ?? []).map(plain),
      files: (draft.files ?? []).map((f) => ({ url: f.url, content_type: f.contentType, body: f.body })),
      closes,
      score_after: next.score,
      grade_after: next.grade,
    });
    flattened.push(...(draft.flattened ?? []));
    cur = next;
    edits = nextEdits;
    files = nextFiles;
    dkim = nextDkim;
  };

  // Repairs first (SPF may need up to three: one record, no broken include, within the limits), then what
  // is missing, then the DMARC stages that wait for evidence, then what builds on enforcement (BIMI).
  for (let i = 0; i < 3; i++) {
    const n = steps.length;
    await tryStep(spfStep({ domain, spf: cur.parts.spf, rules: ruleSet(cur), fixes: cur.fixes }));
    if (steps.length === n) break;
  }
  const [first, ...later] = ramp;
  const enforcing = first && first.gate === "now" && first.policy === (dmarc.parsed?.p ?? "none") ? later : ramp;
  if (first && enforcing !== ramp) await tryStep(dmarcStep(domain, first, true, ruleSet(cur)), true);
  await tryStep(mxStep(cur));
  await tryStep(partFixStep(cur, "tls_rpt", "Publish a TLS-RPT record"));
  await tryStep(mtaStsStep(cur, now));
  await tryStep(mtaStsEnforceStep(cur, now));
  await tryStep(dkimStep(cur, dkim));
  // A domain that receives and sends no mail (null MX) needs no signing key (RFC 7505).
  if (!cur.parts.mx.nullMx) await tryStep(dkimSetupStep(dkim, domain), true);
  for (const stage of enforcing) await tryStep(dmarcStep(domain, stage, false, ruleSet(cur)), true);
  await tryStep(partFixStep(cur, "bimi", "Fix the BIMI record"));

  const unresolved = cur.findings
    .filter((f) => f.severity !== "Info")
    .map((f) => ({ category: f.category, rule: f.rule, severity: f.severity, message: f.description }));
  const blockers = [
    ...steps.filter((s) => s.decision !== null).map((s) => `${s.title}: ${s.decision}`),
    ...(gradeRank(cur.grade) > gradeRank("A") ? unresolved.map((u) => `${u.severity}: ${u.message}`) : []),
  ];
  return {
    score: analysis.score,
    grade: analysis.grade,
    steps,
    final: { score: cur.score, grade: cur.grade },
    blockers,
    unresolved,
    flattened,
  };
}
