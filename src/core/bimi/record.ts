// BIMI assertion record parsing and the DMARC-enforcement prerequisite (draft-brand-indicators-for-message-identification). No I/O.
import type { Finding, Result } from "../types";
import { err, ok } from "../types";
import { DKIM_TAG_NAME, describeIssue, readTagList, type TagGrammar } from "../records/tag-list";

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

/** l= may list URIs separated by commas; each must be https (or the value empty: a declination). */
const httpsList = (value: string): boolean => value === "" || value.split(",").every((u) => httpsUri(u.trim()));

/**
 * The BIMI assertion record: a DKIM-style tag list (RFC 6376 §3.2) starting with v=BIMI1; l= is
 * empty or https URIs and a= is empty or an https URI (BIMI draft §4.2); other tags are ignored.
 */
export const BIMI_RECORD: TagGrammar = {
  record: "BIMI record",
  section: "BIMI draft §4.2",
  name: DKIM_TAG_NAME,
  caseSensitive: false,
  spaceAroundEquals: true,
  duplicate: "record",
  malformed: "record",
  emptySpec: "trailing-only",
  first: { name: "v", value: "BIMI1" },
  tags: {
    v: { required: true, section: "BIMI draft §4.2" },
    l: { section: "BIMI draft §4.2", expected: "an https: URI or nothing", valid: httpsList },
    a: { section: "BIMI draft §4.2", expected: "an https: URI or nothing", valid: httpsList },
  },
};

/** The record with every http:// in l= and a= made https://, the paste-ready fix for a non-https URI. */
const httpsFix = (txt: string): string | null => {
  const fixed = txt.replace(
    /(^|;)(\s*[la]\s*=\s*)([^;]*)/gi,
    (_m, sep: string, tag: string, value: string) => `${sep}${tag}${value.replace(/\bhttp:\/\//gi, "https://")}`,
  );
  return fixed === txt ? null : fixed;
};

export function parseBimiRecord(txt: string): Result<ParsedBimi, Finding> {
  const parsed = readTagList(txt.trimStart(), BIMI_RECORD);
  if (!parsed.ok) {
    const e = parsed.error;
    if (e.kind === "invalid-value" && (e.tag === "l" || e.tag === "a")) {
      const what = e.tag === "l" ? "the logo URI (l=)" : "the evidence URI (a=)";
      return err(
        finding(
          e.tag === "l" ? "bimi.logo-not-https" : "bimi.authority-not-https",
          "High",
          `The BIMI record is invalid: ${what} "${(e.value ?? "").slice(0, 80)}" is not https; the record allows only https: URIs or an empty value, so receivers discard the whole record (${e.section}).`,
          httpsFix(txt),
        ),
      );
    }
    return err(finding("bimi.invalid-syntax", "Medium", `BIMI record is malformed: ${describeIssue(e)}.`));
  }
  const { tags } = parsed.value;
  if (!tags.has("l") && !tags.has("a")) {
    return err(finding("bimi.invalid-syntax", "Medium", "BIMI record has neither l= (logo) nor a= (evidence)."));
  }
  const findings: Finding[] = [];
  const l = tags.get("l") ?? "";
  const a = tags.get("a") ?? "";
  if (l !== "" && l.includes(",")) {
    findings.push(finding("bimi.multiple-logos", "Low", "l= lists several URIs; current receivers use exactly one logo URI."));
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
