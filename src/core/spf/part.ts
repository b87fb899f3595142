// The SPF posture part (RFC 7208): lookups, status, record view, diff rules, weight and fixes. I/O via Resolver only.
import { z } from "zod";
import { rankChange } from "../part/helpers";
import { definePart, type DnsFix, type PartStatus, type SettledContext } from "../part/types";
import { analyzeSpf, type SpfAnalysis } from "./analyze";

export function spfStatus(spf: SpfAnalysis): PartStatus {
  if (spf.status === "temperror") return "temperror";
  if (spf.recordsFound.length === 0) return "missing";
  return spf.status === "permerror" || spf.recordsFound.length > 1 ? "invalid" : "present";
}

const allQualifier = (spf: SpfAnalysis): string | null => {
  const all = spf.tree?.parsed?.mechanisms.find((m) => m.name === "all");
  return all ? `${all.qualifier}all` : null;
};

/** SPF `all` qualifier strength (RFC 7208 §4.6.2): "+" passes everyone, "-" fails everyone else. */
const ALL_RANK: Record<string, number> = { "+all": 0, "?all": 1, none: 1, "~all": 2, "-all": 3 };

/** The SPF facts fixes depend on. `suggested`: the mechanically corrected record, when there is one. */
export interface SpfFixFacts {
  status: PartStatus;
  record: string | null;
  suggested?: string | null;
}

export function spfFixes(spf: SpfFixFacts, ctx: Pick<SettledContext, "domain" | "nullMx" | "mxHosts">): DnsFix[] {
  const d = ctx.domain;
  const live = spf.status === "present" || spf.status === "invalid";
  if (ctx.nullMx) {
    // RFC 7505 §4.3 spirit: a domain that receives no mail should send none either.
    if (live && (spf.record ?? "").trim().toLowerCase() === "v=spf1 -all") return [];
    return [{ host: d, type: "TXT", value: "v=spf1 -all", reason: "The domain accepts no mail (null MX); declare that it sends none." }];
  }
  if (spf.status === "missing") {
    const mx = ctx.mxHosts.length > 0;
    return [
      {
        host: d,
        type: "TXT",
        value: mx ? "v=spf1 mx ~all" : "v=spf1 -all",
        reason: mx
          ? "No SPF record. Start by authorising your MX hosts, add an include: for each sending service, then tighten ~all to -all."
          : "No SPF record and no MX: if the domain sends no mail, this blocks spoofing of its envelope.",
      },
    ];
  }
  if (spf.status !== "temperror" && spf.suggested && spf.suggested !== spf.record) {
    return [{ host: d, type: "TXT", value: spf.suggested, reason: "Corrected SPF record (see the SPF findings for each change)." }];
  }
  return [];
}

export const spfPart = definePart({
  id: "spf",
  label: "SPF",
  weight: 20,
  recordEvent: true,
  removal: "High",
  recordChange: "Medium",
  run: (ctx) => analyzeSpf(ctx.domain, ctx.resolver),
  scored: spfStatus,
  findings: (spf) => spf.findings,
  view: (spf) => ({ status: spfStatus(spf), host: spf.domain, record: spf.record, lookups: spf.lookups.total }),
  example: { status: "present", host: "example.com", record: "v=spf1 include:_spf.google.com -all", lookups: 1 },
  viewSchema: { lookups: z.number().int() },
  snapshot: (spf) => ({ status: spfStatus(spf), record: spf.record, fields: { all: allQualifier(spf) } }),
  fieldSeverity: (field, before, after) => (field === "all" ? rankChange(ALL_RANK, before, after, "High") : undefined),
  fixes: (spf, ctx) => spfFixes({ status: spfStatus(spf), record: spf.record, suggested: spf.fix }, ctx),
});
