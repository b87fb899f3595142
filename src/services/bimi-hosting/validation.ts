// The validation report kept with a hosted logo (hosted_bimi.validation): the SVG Tiny PS findings of the
// logo and the mark certificate's checks against that logo, made by the core validators. No I/O.
import { INFORMATIONAL_CHECKS, type MarkReport } from "../../core/bimi/mark";
import type { Finding } from "../../core/types";
import { sha256Hex } from "../../lib/crypto";

export interface CertificateCheck {
  id: string;
  /** null: could not be judged (e.g. no logo to compare yet). */
  ok: boolean | null;
  message: string;
  fix: string | null;
  /** A failure makes the certificate invalid; false: the check informs only (docs/decisions.md D261). */
  blocking: boolean;
}

export interface CertificateReport {
  kind: "VMC" | "CMC" | null;
  valid: boolean;
  checks: CertificateCheck[];
  subject: {
    organization: string | null;
    common_name: string | null;
    trademark_registration: string | null;
    trademark_country: string | null;
    mark_type: string | null;
  };
  issuer: string | null;
  sans: string[];
  not_before: string | null;
  not_after: string | null;
  embedded_svg_sha256: string | null;
  /** The SVG in the certificate's logotype extension is byte for byte the hosted logo (null: no logo or no SVG). */
  logo_matches: boolean | null;
}

export interface StoredValidation {
  logo: { sha256: string; bytes: number; findings: Finding[] } | null;
  certificate: CertificateReport | null;
}

const isoOf = (d: string | null | undefined): string | null => {
  if (d === null || d === undefined) return null;
  const t = new Date(d);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
};

/** The core's report in the stored (API) shape. */
export function certificateReport(r: MarkReport, logoSha256: string | null): CertificateReport {
  const embedded = r.embeddedSvgSha256 ?? null;
  return {
    kind: r.kind,
    valid: r.valid,
    checks: r.checks.map((c) => ({ id: c.id, ok: c.ok, message: c.message, fix: c.fix ?? null, blocking: !INFORMATIONAL_CHECKS.has(c.id) })),
    subject: {
      organization: r.subject.organization ?? null,
      common_name: r.subject.commonName ?? null,
      trademark_registration: r.subject.trademarkRegistration ?? null,
      trademark_country: r.subject.trademarkCountry ?? null,
      mark_type: r.subject.markType ?? null,
    },
    issuer: r.issuer ?? null,
    sans: [...(r.sans ?? [])],
    not_before: isoOf(r.notBefore),
    not_after: isoOf(r.notAfter),
    embedded_svg_sha256: embedded,
    logo_matches: embedded === null || logoSha256 === null ? null : embedded.toLowerCase() === logoSha256.toLowerCase(),
  };
}

/** Validates a PEM bundle against the hosted logo (absent: the logo checks say so) at `now`. */
export async function validateCertificate(
  pem: string,
  facts: { domain: string; selector: string; logoSvg: string | null; now: Date },
): Promise<CertificateReport> {
  // Loaded on first use, like the posture's check: the ASN.1 code stays out of every isolate's start.
  const { validateMarkCertificate } = await import("../../core/bimi/mark");
  const report = await validateMarkCertificate(pem, { domain: facts.domain, selector: facts.selector, logoSvg: facts.logoSvg, now: facts.now });
  // The hash of the logo as it is now (not a stored one): the bytes served are the bytes compared.
  return certificateReport(report, facts.logoSvg === null ? null : await sha256Hex(facts.logoSvg));
}

/** The stored report; `blocking` is derived again from the check id, so reports stored before it existed read the same. */
export function parseValidation(text: string | null): StoredValidation | null {
  if (text === null) return null;
  const stored = JSON.parse(text) as StoredValidation;
  const c = stored.certificate;
  return c === null ? stored : { ...stored, certificate: { ...c, checks: c.checks.map((x) => ({ ...x, blocking: !INFORMATIONAL_CHECKS.has(x.id) })) } };
}
