// BIMI assertion record parsing and the DMARC-enforcement prerequisite (draft-brand-indicators-for-message-identification). No I/O.
import type { Finding, Result } from "../types";
import { err, ok } from "../types";
import { parseTagList } from "../records/tag-list";

export interface BimiRecord {
  /** Logo URI (https, SVG Tiny PS); null when l= is empty. */
  logo: string | null;
  /** Evidence document (VMC/CMC PEM) URI; null when a= is absent or empty. */
  authority: string | null;
  /** lps= local-part selectors, lower-cased. */
  localPartSelectors: string[];
  /** avp= avatar preference: "brand" | "personal" | other text as published. */
  avatarPreference: string | null;
  /** l= and a= both empty: the domain declines to take part (draft §4.2). */
  declined: boolean;
}

/** DMARC facts BIMI depends on, supplied by the caller so this module never imports DMARC code. */
export interface DmarcFacts {
  p: string | null;
  sp: string | null;
  pct: number | null;
}

export interface ParsedBimi {
  record: BimiRecord;
  findings: Finding[];
}

const finding = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({
  rule,
  severity,
  description,
  fix,
});

/** Records that do not start with v=BIMI1 are not BIMI records (draft §4.2: v= MUST be first). */
export const isBimiCandidate = (txt: string): boolean => /^\s*v\s*=\s*BIMI1\s*(;|$)/i.test(txt);

const httpsUri = (value: string): boolean => {
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
};

export function parseBimiRecord(txt: string): Result<ParsedBimi, Finding> {
  const parsed = parseTagList(txt);
  if (!parsed.ok) return err(finding("bimi.invalid-syntax", "Medium", `BIMI record is malformed: ${parsed.error}.`));
  const { order, tags } = parsed.value;
  if (order[0] !== "v" || tags.get("v") !== "BIMI1") {
    return err(finding("bimi.invalid-syntax", "Medium", "BIMI record must start with v=BIMI1."));
  }
  if (!tags.has("l") && !tags.has("a")) {
    return err(finding("bimi.invalid-syntax", "Medium", "BIMI record has neither l= (logo) nor a= (evidence)."));
  }
  const findings: Finding[] = [];
  const l = tags.get("l") ?? "";
  const a = tags.get("a") ?? "";
  if (l !== "" && l.includes(",")) {
    findings.push(finding("bimi.multiple-logos", "Low", "l= lists several URIs; current receivers use exactly one logo URI."));
  }
  if (l !== "" && !httpsUri(l)) {
    findings.push(finding("bimi.logo-not-https", "High", "l= must be an https: URI; receivers ignore other schemes."));
  }
  if (a !== "" && !httpsUri(a)) {
    findings.push(finding("bimi.authority-not-https", "High", "a= must be an https: URI to the VMC/CMC PEM."));
  }
  const declined = l === "" && a === "";
  if (!declined && a === "") {
    findings.push(finding("bimi.no-certificate", "Low", "No a= evidence document: Gmail and Apple display logos only with a VMC or CMC."));
  }
  const avp = tags.get("avp") ?? null;
  if (avp !== null && avp !== "brand" && avp !== "personal") {
    findings.push(finding("bimi.invalid-avp", "Low", `avp= must be "brand" or "personal", not "${avp.slice(0, 20)}".`));
  }
  const lps = tags.get("lps");
  const record: BimiRecord = {
    logo: l === "" ? null : l,
    authority: a === "" ? null : a,
    localPartSelectors: lps
      ? lps
          .split(",")
          .map((s) => s.trim().toLowerCase())
          .filter((s) => s !== "")
      : [],
    avatarPreference: avp,
    declined,
  };
  return ok({ record, findings });
}

/**
 * BIMI is processed only under an enforcing DMARC policy: p=quarantine|reject, sp not none
 * (draft §7.1: MUST NOT process when sp=none) and pct=100 when present (RFC 7489 era receivers).
 */
export function bimiDmarcFindings(dmarc: DmarcFacts | null): Finding[] {
  if (dmarc === null) {
    return [
      finding(
        "bimi.no-enforcing-dmarc",
        "High",
        "BIMI requires a DMARC record at enforcement; none was found.",
        "Publish DMARC with p=quarantine or p=reject before BIMI.",
      ),
    ];
  }
  const out: Finding[] = [];
  const p = (dmarc.p ?? "none").toLowerCase();
  if (p !== "quarantine" && p !== "reject") {
    out.push(
      finding(
        "bimi.no-enforcing-dmarc",
        "High",
        `DMARC p=${p} is not enforcing; receivers will not show the BIMI logo.`,
        "Move DMARC to p=quarantine (pct=100) or p=reject.",
      ),
    );
  }
  if ((dmarc.sp ?? "").toLowerCase() === "none") {
    out.push(
      finding(
        "bimi.dmarc-sp-none",
        "High",
        "DMARC sp=none disables BIMI processing (BIMI draft §7.1).",
        "Set sp=quarantine or sp=reject, or remove sp= so p applies to subdomains.",
      ),
    );
  }
  if (dmarc.pct !== null && dmarc.pct < 100) {
    out.push(
      finding("bimi.dmarc-pct-below-100", "Medium", `DMARC pct=${dmarc.pct}: BIMI needs the policy applied to 100% of mail.`, "Remove pct= or set pct=100."),
    );
  }
  return out;
}
