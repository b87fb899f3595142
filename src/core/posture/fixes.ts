// Exact DNS records to publish ({host, type, value, reason}) and impact-ordered recommendations. No I/O.
import type { Severity } from "../types";
import { SEVERITIES } from "../types";
import { CATEGORY_WEIGHTS } from "./score";
import type { CategorizedFinding, PartStatus, PostureCategory } from "./types";

export interface DnsFix {
  host: string;
  type: "TXT" | "MX" | "CNAME";
  value: string;
  reason: string;
}

export interface Recommendation {
  category: PostureCategory;
  severity: Severity;
  rule: string;
  message: string;
  fix: string | null;
}

/** The facts fixes depend on, mapped by the orchestrator from each module's result. */
export interface FixFacts {
  domain: string;
  /** RFC 7505 null MX: the domain receives no mail, so it is treated as parked. */
  nullMx: boolean;
  mxHosts: string[];
  /** `suggested`: the SPF module's mechanically corrected record, when it has one. */
  spf: { status: PartStatus; record: string | null; suggested?: string | null };
  dmarc: { status: PartStatus; record: string | null; p: string | null; sp: string | null; pct: number | null; rua: string[] };
  mtaSts: { status: PartStatus; uncovered: string[] };
  tlsRpt: { status: PartStatus };
}

export interface FixOptions {
  /** DMARC aggregate address, e.g. "mailto:rua+abc@reports.example" (the service's own intake). */
  dmarcRua?: string | null;
  /** TLS-RPT destination; defaults to mailto:tls-reports@<domain>. */
  tlsRptRua?: string | null;
  /** Used to mint MTA-STS ids (RFC 8461 §3.1: id must change with every policy change). */
  now: Date;
}

/** Replace or append one tag of a tag=value record, keeping the others in order. */
export function setTag(record: string, tag: string, value: string | null): string {
  const parts = record
    .split(";")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const i = parts.findIndex((p) => p.split("=")[0]?.trim().toLowerCase() === tag);
  if (value === null) {
    if (i >= 0) parts.splice(i, 1);
  } else if (i >= 0) parts[i] = `${tag}=${value}`;
  else parts.push(`${tag}=${value}`);
  return parts.join("; ");
}

const stsId = (now: Date): string =>
  now
    .toISOString()
    .replace(/[-:TZ.]/g, "")
    .slice(0, 14);

/** A starting policy file for https://mta-sts.<domain>/.well-known/mta-sts.txt (RFC 8461 §3.2, CRLF lines). */
export function mtaStsPolicyTemplate(mxHosts: string[], mode: "testing" | "enforce" = "testing"): string {
  return ["version: STSv1", `mode: ${mode}`, ...mxHosts.map((h) => `mx: ${h}`), "max_age: 604800", ""].join("\r\n");
}

export function buildFixes(facts: FixFacts, opts: FixOptions): DnsFix[] {
  const d = facts.domain;
  const out: DnsFix[] = [];
  const rua = opts.dmarcRua ?? null;
  const spfLive = facts.spf.status === "present" || facts.spf.status === "invalid";
  if (facts.nullMx) {
    // RFC 7505 §4.3 spirit: a domain that receives no mail should send none either.
    if (!spfLive || (facts.spf.record ?? "").trim().toLowerCase() !== "v=spf1 -all") {
      out.push({ host: d, type: "TXT", value: "v=spf1 -all", reason: "The domain accepts no mail (null MX); declare that it sends none." });
    }
  } else if (facts.spf.status === "missing") {
    out.push({
      host: d,
      type: "TXT",
      value: facts.mxHosts.length > 0 ? "v=spf1 mx ~all" : "v=spf1 -all",
      reason:
        facts.mxHosts.length > 0
          ? "No SPF record. Start by authorising your MX hosts, add an include: for each sending service, then tighten ~all to -all."
          : "No SPF record and no MX: if the domain sends no mail, this blocks spoofing of its envelope.",
    });
  } else if (facts.spf.status !== "temperror" && facts.spf.suggested && facts.spf.suggested !== facts.spf.record) {
    out.push({ host: d, type: "TXT", value: facts.spf.suggested, reason: "Corrected SPF record (see the SPF findings for each change)." });
  }
  const dmarcFix = dmarcRecordFix(facts, rua);
  if (dmarcFix) out.push({ host: `_dmarc.${d}`, type: "TXT", ...dmarcFix });
  if (!facts.nullMx && facts.mxHosts.length > 0) {
    if (facts.mtaSts.status === "missing") {
      out.push({
        host: `_mta-sts.${d}`,
        type: "TXT",
        value: `v=STSv1; id=${stsId(opts.now)}`,
        reason: `Enables MTA-STS once https://mta-sts.${d}/.well-known/mta-sts.txt serves (text/plain):\n${mtaStsPolicyTemplate(facts.mxHosts)}`,
      });
    } else if (facts.mtaSts.status === "present" && facts.mtaSts.uncovered.length > 0) {
      out.push({
        host: `_mta-sts.${d}`,
        type: "TXT",
        value: `v=STSv1; id=${stsId(opts.now)}`,
        reason: `After adding ${facts.mtaSts.uncovered.map((h) => `"mx: ${h}"`).join(", ")} to the policy file, change the id so senders re-fetch it.`,
      });
    }
    if (facts.tlsRpt.status === "missing") {
      out.push({
        host: `_smtp._tls.${d}`,
        type: "TXT",
        value: `v=TLSRPTv1; rua=${opts.tlsRptRua ?? `mailto:tls-reports@${d}`}`,
        reason: "Receive daily reports of TLS delivery failures to your MX (RFC 8460).",
      });
    }
  }
  if (!facts.nullMx && facts.mxHosts.length === 0 && (facts.spf.record ?? "").trim().toLowerCase() === "v=spf1 -all") {
    out.push({
      host: d,
      type: "MX",
      value: "0 .",
      reason: "SPF says the domain sends no mail and it has no MX: publish a null MX (RFC 7505) so senders fail fast.",
    });
  }
  return out;
}

function dmarcRecordFix(facts: FixFacts, rua: string | null): { value: string; reason: string } | null {
  const m = facts.dmarc;
  if (m.status === "temperror") return null;
  if (m.status !== "present" || m.record === null) {
    if (facts.nullMx)
      return { value: `v=DMARC1; p=reject; sp=reject${rua ? `; rua=${rua}` : ""}`, reason: "Parked domain: reject all mail claiming to be from it." };
    return {
      value: `v=DMARC1; p=none${rua ? `; rua=${rua}` : ""}`,
      reason: "No valid DMARC record. Start with p=none to collect reports, then move to quarantine and reject.",
    };
  }
  let rec = m.record;
  const reasons: string[] = [];
  const p = (m.p ?? "none").toLowerCase();
  if (facts.nullMx && (p !== "reject" || (m.sp ?? "reject") !== "reject")) {
    rec = setTag(setTag(rec, "p", "reject"), "sp", "reject");
    reasons.push("parked domain: reject everything");
  } else if (p === "none") {
    rec = setTag(rec, "p", "quarantine");
    reasons.push("p=none only monitors; move to quarantine once reports show your senders pass");
  }
  if ((m.sp ?? "").toLowerCase() === "none" && !facts.nullMx) {
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

/** Findings with something to act on, most impactful first: severity, then category weight. */
export function buildRecommendations(findings: readonly CategorizedFinding[]): Recommendation[] {
  const seen = new Set<string>();
  return findings
    .filter((f) => f.severity !== "Info" || f.fix !== null)
    .filter((f) => {
      const key = `${f.category}|${f.rule}|${f.description}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || CATEGORY_WEIGHTS[b.category] - CATEGORY_WEIGHTS[a.category])
    .map((f) => ({ category: f.category, severity: f.severity, rule: f.rule, message: f.description, fix: f.fix }));
}
