// The evidence document at a= of a published BIMI record: fetched over the HttpFetch port and judged with
// validateMarkCertificate; its failures become posture findings. A fetch failure is "cannot tell", never invalid.
import { fetchTextCapped } from "../net/http";
import type { Finding, HttpFetch } from "../types";
import { INFORMATIONAL_CHECKS, validateMarkCertificate } from "./mark";
import type { MarkCheck, MarkReport } from "./mark/types";

/** A VMC with its chain and a 32 KB logo is well under this; a larger file is not a mark certificate. */
const PEM_MAX_BYTES = 256 * 1024;
/** Renew before this: CAs take days to reissue, and an expired certificate removes the logo at once. */
export const MARK_EXPIRY_WARNING_DAYS = 30;

export interface MarkPosture {
  /** "unknown" when the file could not be fetched (network, TLS, timeout). */
  status: "valid" | "invalid" | "unknown";
  report: MarkReport | null;
  findings: Finding[];
}

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({ rule, severity, description, fix });

/** Each failed check of the report as one finding; the rule says what broke, the fix comes from the check. */
const RULE_OF: Record<string, string> = {
  parse: "bimi.vmc-invalid",
  "not-self-signed": "bimi.vmc-untrusted",
  chain: "bimi.vmc-chain",
  "trusted-root": "bimi.vmc-untrusted",
  validity: "bimi.vmc-expired",
  eku: "bimi.vmc-wrong-eku",
  san: "bimi.vmc-wrong-domain",
  "mark-type": "bimi.vmc-mark-type",
  "subject-fields": "bimi.vmc-subject-fields",
  extensions: "bimi.vmc-forbidden-extension",
  logotype: "bimi.vmc-logo-invalid",
  "logo-hash": "bimi.vmc-logo-invalid",
  "embedded-svg": "bimi.vmc-logo-invalid",
  "logo-match": "bimi.vmc-logo-mismatch",
};

// A failed informational check (the CA's defect, which receivers overlook; D261) is Low, not High.
const checkFinding = (c: MarkCheck): Finding =>
  c.ok === false
    ? f(RULE_OF[c.id] ?? "bimi.vmc-invalid", INFORMATIONAL_CHECKS.has(c.id) ? "Low" : "High", `Mark certificate (a=): ${c.message}`, c.fix ?? null)
    : f(RULE_OF[c.id] ?? "bimi.vmc-invalid", "Info", `Mark certificate (a=), not checked: ${c.message}`, c.fix ?? null);

export interface MarkCheckInput {
  url: string;
  /** The domain of the BIMI record (after any Organizational Domain fallback) and its selector. */
  domain: string;
  selector: string;
  /** The logo fetched from l=, when it was; compared with the one in the certificate. */
  logoSvg: string | null;
  now: Date;
  fetch: HttpFetch;
  timeoutMs?: number;
}

export async function checkBimiMark(input: MarkCheckInput): Promise<MarkPosture> {
  const res = await fetchTextCapped(input.fetch, input.url, { timeoutMs: input.timeoutMs ?? 10_000, maxBytes: PEM_MAX_BYTES });
  if (!res.ok) {
    return {
      status: "unknown",
      report: null,
      findings: [f("bimi.vmc-fetch-failed", "Info", `Mark certificate at a= could not be fetched (${res.error}); not checked.`)],
    };
  }
  const r = res.value;
  if (r.status !== 200) {
    return {
      status: "invalid",
      report: null,
      findings: [
        f(
          "bimi.vmc-unavailable",
          "High",
          `Mark certificate URL (a=) returned HTTP ${r.status}${r.location ? ` (redirect to ${r.location})` : ""}; receivers cannot read it.`,
          "Serve the PEM file at the a= URL directly over HTTPS with status 200 (no redirect).",
        ),
      ],
    };
  }
  if (r.tooLarge) {
    return {
      status: "invalid",
      report: null,
      findings: [f("bimi.vmc-invalid", "High", "The file at a= is far too large to be a mark certificate.", "Publish the PEM file of your VMC or CMC at a=.")],
    };
  }
  const report = await validateMarkCertificate(r.body, { domain: input.domain, selector: input.selector, logoSvg: input.logoSvg, now: input.now });
  const findings = report.checks.filter((c) => c.ok !== true).map(checkFinding);
  const daysLeft = report.notAfter === null ? null : (Date.parse(report.notAfter) - input.now.getTime()) / 86_400_000;
  if (report.valid && daysLeft !== null && daysLeft <= MARK_EXPIRY_WARNING_DAYS) {
    findings.push(
      f(
        "bimi.vmc-expiring",
        "Medium",
        `Mark certificate (a=) expires in ${Math.max(0, Math.floor(daysLeft))} day(s), on ${report.notAfter}.`,
        "Renew the certificate with your CA now and publish the new PEM file at a= before the old one expires.",
      ),
    );
  }
  return { status: report.valid ? "valid" : "invalid", report, findings };
}
