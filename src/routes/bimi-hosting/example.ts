// The documented example of a hosted BIMI state: a logo and a VMC that validate, a domain at p=reject
// whose published record points at the hosted files. Shaped like the verb's answer (the test of the
// OpenAPI document validates it against the schema).
const ORIGIN = "https://dmarc.example.net";
const SVG_SHA = "977f6761f83a0b43812636fa8efd1a34a2c766fa4b3376dafa014065c7c184dc";
const L = `${ORIGIN}/bimi/example.com/default.svg`;
const A = `${ORIGIN}/bimi/example.com/default.pem`;
const met = (id: string, label: string, detail: string) => ({ id, label, state: "met", detail, fix: null });

export const BIMI_HOSTING_EXAMPLE = {
  domain: { id: 1, name: "example.com", verified: true },
  selector: "default",
  hosted: true,
  logo: { url: L, sha256: SVG_SHA, bytes: 1098, uploaded_at: "2026-11-20T09:00:00.000Z" },
  certificate: { url: A, source_url: null, kind: "VMC", not_after: "2027-09-08T23:59:59.000Z", uploaded_at: "2026-11-20T09:01:00.000Z" },
  record: { host: "default._bimi.example.com", type: "TXT", value: `v=BIMI1; l=${L}; a=${A}` },
  published: { status: "present", record: `v=BIMI1; l=${L}; a=${A}`, logo: L, authority: A, host: "default._bimi.example.com", from_org_domain: false },
  validation: {
    logo: { sha256: SVG_SHA, bytes: 1098, findings: [] },
    certificate: {
      kind: "VMC",
      valid: true,
      checks: [
        { id: "chain", ok: true, message: "The chain verifies: 3 certificate(s), every signature checked.", fix: null, blocking: true },
        { id: "logo-match", ok: true, message: "The published logo is byte-for-byte the SVG in the certificate.", fix: null, blocking: true },
      ],
      subject: {
        organization: "Example, Inc.",
        common_name: "Example, Inc.",
        trademark_registration: "6275156",
        trademark_country: "US",
        mark_type: "Registered Mark",
      },
      issuer: "CN=DigiCert Verified Mark RSA4096 SHA256 2021 CA1, O=DigiCert, Inc., C=US",
      sans: ["example.com"],
      not_before: "2026-09-09T00:00:00.000Z",
      not_after: "2027-09-08T23:59:59.000Z",
      embedded_svg_sha256: SVG_SHA,
      logo_matches: true,
    },
  },
  validated_at: "2026-11-21T03:17:00.000Z",
  gmail: {
    verdict: "shows",
    summary:
      "Gmail would show the logo: every published requirement is met (Gmail still decides per message: it must pass DMARC, and Gmail weighs the sender's reputation).",
    requirements: [
      met("dmarc_enforcement", "DMARC at enforcement (p=quarantine or p=reject) on the organizational domain", "_dmarc.example.com applies p=reject."),
      met("dmarc_pct", "DMARC applied to all mail (pct=100 or no pct)", "No pct tag: the policy applies to all mail."),
      met(
        "logo_profile",
        "The logo follows SVG Tiny PS (square, with a title, no scripts or external references)",
        "The hosted logo passed the SVG Tiny PS checks.",
      ),
      met(
        "mark_certificate",
        "A Verified Mark Certificate (VMC) or Common Mark Certificate (CMC) that validates",
        "A VMC for Example, Inc., issued by DigiCert.",
      ),
      met("certificate_dates", "The certificate is within its validity dates", "Valid until 2027-09-08 23:59 UTC."),
      met("logo_matches_certificate", "The logo in the certificate is the logo at l=", "The hosted logo is byte for byte the SVG in the certificate."),
      met("record_published", "A BIMI record at default._bimi.example.com pointing l= and a= at the hosted files", `Published: v=BIMI1; l=${L}; a=${A}`),
    ],
    sources: [
      { title: "Google Workspace Admin Help: Set up BIMI", url: "https://support.google.com/a/answer/10911320" },
      { title: "BIMI Group: Implementation guide", url: "https://bimigroup.org/implementation-guide/" },
      {
        title: "IETF draft-brand-indicators-for-message-identification",
        url: "https://datatracker.ietf.org/doc/draft-brand-indicators-for-message-identification/",
      },
    ],
  },
};
