// The DMARC posture part (RFC 9989): discovery, status, record view, diff rules, weight and the record fix. I/O via Resolver only.
import { z } from "zod";
import { rankChange, setTag } from "../part/helpers";
import { definePart, type DnsFix, type PartSnapshot, type PartStatus, type SettledContext } from "../part/types";
import { analyzeDmarc, type DmarcAnalysis } from "./analyze";

export function dmarcStatus(dmarc: DmarcAnalysis): PartStatus {
  if (dmarc.discovery.status === "temperror") return "temperror";
  if (dmarc.findings.some((f) => f.rule === "dmarc.multiple-records")) return "invalid";
  if (dmarc.discovery.status === "none" || dmarc.parsed === null) return "missing";
  return dmarc.parsed.policyApplies ? "present" : "invalid";
}

const POLICY_RANK: Record<string, number> = { none: 0, quarantine: 1, reject: 2 };

/** The DMARC facts the record fix depends on. */
export interface DmarcFixFacts {
  status: PartStatus;
  record: string | null;
  p: string | null;
  sp: string | null;
  pct: number | null;
  rua: string[];
}

function recordFix(m: DmarcFixFacts, nullMx: boolean, rua: string | null): { value: string; reason: string } | null {
  if (m.status === "temperror") return null;
  if (m.status !== "present" || m.record === null) {
    if (nullMx) return { value: `v=DMARC1; p=reject; sp=reject${rua ? `; rua=${rua}` : ""}`, reason: "Parked domain: reject all mail claiming to be from it." };
    return {
      value: `v=DMARC1; p=none${rua ? `; rua=${rua}` : ""}`,
      reason: "No valid DMARC record. Start with p=none to collect reports, then move to quarantine and reject.",
    };
  }
  let rec = m.record;
  const reasons: string[] = [];
  const p = (m.p ?? "none").toLowerCase();
  if (nullMx && (p !== "reject" || (m.sp ?? "reject") !== "reject")) {
    rec = setTag(setTag(rec, "p", "reject"), "sp", "reject");
    reasons.push("parked domain: reject everything");
  } else if (p === "none") {
    rec = setTag(rec, "p", "quarantine");
    reasons.push("p=none only monitors; move to quarantine once reports show your senders pass");
  }
  if ((m.sp ?? "").toLowerCase() === "none" && !nullMx) {
    rec = setTag(rec, "sp", null);
    reasons.push("sp=none leaves subdomains unprotected (and disables BIMI)");
  }
  if (m.pct !== null && m.pct < 100) {
    rec = setTag(rec, "pct", null);
    reasons.push("pct below 100 applies the policy to only part of the mail (pct is removed in RFC 9989)");
  }
  if (m.rua.length === 0 && rua) {
    rec = setTag(rec, "rua", rua);
    reasons.push("no rua: you receive no aggregate reports");
  }
  return reasons.length === 0 ? null : { value: rec, reason: `${reasons.join("; ")}.` };
}

/** `dmarcRua`: the service's own aggregate address for the domain, added when the record has none. */
export function dmarcFixes(m: DmarcFixFacts, ctx: Pick<SettledContext, "domain" | "nullMx">, dmarcRua: string | null): DnsFix[] {
  const fix = recordFix(m, ctx.nullMx, dmarcRua);
  return fix ? [{ host: `_dmarc.${ctx.domain}`, type: "TXT", ...fix }] : [];
}

const Policy = z.enum(["none", "quarantine", "reject"]);

export const dmarcPart = definePart({
  id: "dmarc",
  label: "DMARC",
  weight: 30,
  recordEvent: true,
  removal: "High",
  recordChange: "Low",
  run: (ctx) => analyzeDmarc(ctx.domain, ctx.resolver),
  scored: dmarcStatus,
  findings: (dmarc) => dmarc.findings,
  view: (dmarc) => ({
    status: dmarcStatus(dmarc),
    host: `_dmarc.${dmarc.discovery.policyDomain ?? dmarc.domain}`,
    record: dmarc.record,
    policy: dmarc.policy,
    inherited: dmarc.discovery.inherited,
  }),
  example: {
    status: "present",
    host: "_dmarc.example.com",
    record: "v=DMARC1; p=reject; rua=mailto:dmarc@example.org",
    policy: "reject",
    inherited: false,
  },
  viewSchema: { policy: Policy.nullable(), inherited: z.boolean() },
  snapshot: (dmarc): PartSnapshot => {
    const d = dmarc.parsed;
    return {
      status: dmarcStatus(dmarc),
      record: dmarc.record,
      fields: d ? { p: d.p, sp: d.sp, np: d.np, pct: d.pct, rua: d.rua.map((u) => u.uri), adkim: d.adkim, aspf: d.aspf, t: d.t } : {},
    };
  },
  fieldSeverity(field, before, after) {
    if (field === "p" || field === "sp" || field === "np") return rankChange(POLICY_RANK, before, after, "High");
    if (field === "pct") return Number(after ?? 100) < Number(before ?? 100) ? "Medium" : "Info";
    if (field === "rua") return "Medium";
    return undefined;
  },
  fixes: (dmarc, ctx) =>
    dmarcFixes(
      {
        status: dmarcStatus(dmarc),
        record: dmarc.record,
        p: dmarc.parsed?.p ?? null,
        sp: dmarc.parsed?.sp ?? null,
        pct: dmarc.parsed?.pct ?? null,
        rua: dmarc.parsed?.rua.map((u) => u.uri) ?? [],
      },
      ctx,
      ctx.settings.dmarcRua ?? null,
    ),
});
