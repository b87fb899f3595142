// RFC 9989 §4.10 DNS Tree Walk: policy discovery (§4.10.1) and Organizational Domain (§4.10.2). I/O only via the Resolver.
import type { Resolver } from "../dns/types";
import { err, ok, type Result } from "../types";
import { isDmarcRecord, parseDmarc, type DmarcRecord } from "./parse";

/** §4.10: "Author Domains with more than eight labels do not result in more than eight DNS queries". */
export const TREE_WALK_BUDGET = 8;

export type DmarcFetch =
  | { kind: "record"; name: string; record: string; parsed: DmarcRecord; otherTxt: string[] }
  /** §4.10 steps 2/6: several v=DMARC1 records are all discarded. */
  | { kind: "multiple"; name: string; records: string[]; otherTxt: string[] }
  | { kind: "none"; name: string; otherTxt: string[] }
  | { kind: "temperror"; name: string; reason: string };

export async function fetchDmarc(domain: string, resolver: Resolver): Promise<DmarcFetch> {
  const name = `_dmarc.${domain}`;
  const res = await resolver.query(name, "TXT");
  if (res.kind === "temperror") return { kind: "temperror", name, reason: res.reason };
  const txt = res.kind === "records" ? res.records : [];
  const dmarc = txt.filter(isDmarcRecord);
  const otherTxt = txt.filter((t) => !isDmarcRecord(t));
  if (dmarc.length > 1) return { kind: "multiple", name, records: dmarc, otherTxt };
  const parsed = dmarc[0] !== undefined ? parseDmarc(dmarc[0]) : null;
  if (!parsed?.ok) return { kind: "none", name, otherTxt };
  return { kind: "record", name, record: dmarc[0] ?? "", parsed: parsed.value, otherTxt };
}

/** The targets of one walk, starting at `domain` (§4.10 steps 3, 4, 7). */
export function walkTargets(domain: string): string[] {
  const labels = domain
    .toLowerCase()
    .replace(/\.$/, "")
    .split(".")
    .filter((l) => l !== "");
  const out = [labels.join(".")];
  // Step 4: x >= 8 labels are shortened to 7 after the first query; otherwise drop one label.
  let n = labels.length >= 8 ? 7 : labels.length - 1;
  for (; n >= 1; n--) out.push(labels.slice(labels.length - n).join("."));
  return out.slice(0, TREE_WALK_BUDGET);
}

export interface WalkStep {
  domain: string;
  result: DmarcFetch;
}

/**
 * Runs the walk; stops at psd=y/n (§4.10 steps 2/6), at the first temperror, or optionally at a record at
 * the start. Every name of the walk is known up front, so the queries go out together and the answers are
 * read in the walk's order: the steps, and so the chosen record, are those of a sequential walk (the
 * selection rules of §4.10.1 and §4.10.2 read the steps in that order). With `stopIfStartHasRecord` the
 * start is asked alone first, since a record there ends the walk (§4.10.1) and most domains have one.
 */
export async function treeWalk(domain: string, resolver: Resolver, stopIfStartHasRecord = false): Promise<WalkStep[]> {
  const targets = walkTargets(domain);
  const sent = new Map<number, Promise<DmarcFetch>>();
  const ask = (i: number): Promise<DmarcFetch> => {
    let p = sent.get(i);
    if (!p) {
      p = fetchDmarc(targets[i] ?? "", resolver);
      sent.set(i, p);
    }
    return p;
  };
  const askRest = (from: number) => {
    for (let i = from; i < targets.length; i++) ask(i);
  };
  if (!stopIfStartHasRecord) askRest(0);
  const steps: WalkStep[] = [];
  for (let i = 0; i < targets.length; i++) {
    const result = await ask(i);
    steps.push({ domain: targets[i] ?? "", result });
    if (result.kind === "temperror") break;
    if (result.kind === "record" && (result.parsed.psd !== "u" || (stopIfStartHasRecord && i === 0))) break;
    if (i === 0) askRest(1);
  }
  return steps;
}

export interface OrgDomain {
  orgDomain: string;
  /** Domains with a single valid record found by the walk, longest first. */
  recordsAt: string[];
  queries: number;
}

export interface TreeWalkTemperror {
  kind: "temperror";
  name: string;
  reason: string;
}

/** §4.10.2 selection over the walk's records, longest to shortest. */
function selectOrg(start: string, steps: WalkStep[]): string {
  const found = steps.filter((s) => s.result.kind === "record");
  for (const s of found) {
    if (s.result.kind !== "record") continue;
    if (s.result.parsed.psd === "n") return s.domain; // rule 1
    if (s.result.parsed.psd === "y" && s.domain !== start) {
      // rule 2: the domain one label below the PSD, on the path from the start domain
      const labels = start.split(".");
      return labels.slice(labels.length - s.domain.split(".").length - 1).join(".");
    }
  }
  return found[found.length - 1]?.domain ?? start; // rule 3, else the start domain itself
}

export async function organizationalDomain(domain: string, resolver: Resolver): Promise<Result<OrgDomain, TreeWalkTemperror>> {
  const start = domain.toLowerCase().replace(/\.$/, "");
  const steps = await treeWalk(start, resolver);
  const last = steps[steps.length - 1]?.result;
  // A transient failure must never be read as "no record": the answer is unknown.
  if (last?.kind === "temperror") return err({ kind: "temperror", name: last.name, reason: last.reason });
  return ok({ orgDomain: selectOrg(start, steps), recordsAt: steps.filter((s) => s.result.kind === "record").map((s) => s.domain), queries: steps.length });
}

export interface PolicyDiscovery {
  domain: string;
  status: "found" | "none" | "temperror";
  /** Where the applicable record lives (the author, organizational or public suffix domain). */
  policyDomain: string | null;
  record: string | null;
  parsed: DmarcRecord | null;
  /** True when the record was found at an ancestor, so sp/np rather than p applies. */
  inherited: boolean;
  orgDomain: string | null;
  queries: number;
  steps: WalkStep[];
  temperror: { name: string; reason: string } | null;
}

/** §4.10.1: the record at the Author Domain, else at its Organizational Domain, else at its PSD. */
export async function discoverPolicy(domain: string, resolver: Resolver): Promise<PolicyDiscovery> {
  const start = domain.toLowerCase().replace(/\.$/, "");
  // §4.10.1: a record at the Author Domain is the policy; the walk is needed only without one.
  const steps = await treeWalk(start, resolver, true);
  const base: PolicyDiscovery = {
    domain: start,
    status: "none",
    policyDomain: null,
    record: null,
    parsed: null,
    inherited: false,
    orgDomain: null,
    queries: steps.length,
    steps,
    temperror: null,
  };
  const first = steps[0]?.result;
  if (first?.kind === "record") {
    // The org domain needs a separate walk (§4.10.2); organizationalDomain() does it when alignment needs it.
    return { ...base, status: "found", policyDomain: start, record: first.record, parsed: first.parsed, orgDomain: first.parsed.psd === "n" ? start : null };
  }
  const last = steps[steps.length - 1]?.result;
  if (last?.kind === "temperror") return { ...base, status: "temperror", temperror: { name: last.name, reason: last.reason } };
  const org = selectOrg(start, steps);
  const at = (d: string) => steps.find((s) => s.domain === d && s.result.kind === "record")?.result;
  const psd = steps.find((s) => s.result.kind === "record" && s.result.parsed.psd === "y");
  const hit = at(org) ?? psd?.result;
  if (hit?.kind !== "record") return { ...base, orgDomain: org };
  return { ...base, status: "found", policyDomain: hit.name.replace(/^_dmarc\./, ""), record: hit.record, parsed: hit.parsed, inherited: true, orgDomain: org };
}
