// The Mark Certificate profile of a subscriber certificate (the AuthIndicators Working Group's "Minimum Security
// Requirements for Issuance of Mark Certificates", MC Requirements 1.7, §7.1): the subject fields each mark type
// carries, and the extensions a certificate must not carry. No I/O. docs/decisions.md D261-D262.
import type { ParsedCertificate } from "./certificate";
import { nameValues } from "./certificate";
import type { MarkCheck } from "./types";

/** Subject attribute types named in §7.1.4.2.2, by the names the MC Requirements use. */
const FIELD = {
  organizationName: "2.5.4.10",
  streetAddress: "2.5.4.9",
  localityName: "2.5.4.7",
  stateOrProvinceName: "2.5.4.8",
  countryName: "2.5.4.6",
  businessCategory: "2.5.4.15",
  serialNumber: "2.5.4.5",
  jurisdictionLocalityName: "1.3.6.1.4.1.311.60.2.1.1",
  jurisdictionStateOrProvinceName: "1.3.6.1.4.1.311.60.2.1.2",
  jurisdictionCountryName: "1.3.6.1.4.1.311.60.2.1.3",
  trademarkOfficeName: "1.3.6.1.4.1.53087.1.2",
  trademarkCountryOrRegionName: "1.3.6.1.4.1.53087.1.3",
  trademarkIdentifier: "1.3.6.1.4.1.53087.1.4",
  markType: "1.3.6.1.4.1.53087.1.13",
  statuteCountryName: "1.3.6.1.4.1.53087.3.2",
  statuteStateOrProvinceName: "1.3.6.1.4.1.53087.3.3",
  statuteLocalityName: "1.3.6.1.4.1.53087.3.4",
  statuteCitation: "1.3.6.1.4.1.53087.3.5",
  statuteURL: "1.3.6.1.4.1.53087.3.6",
  priorUseMarkSourceURL: "1.3.6.1.4.1.53087.5.1",
} as const;
type Field = keyof typeof FIELD;

/** §7.1.4.2.2 (b, c, g, i, j, k, r): required whatever the mark type. */
const REQUIRED: Field[] = ["organizationName", "streetAddress", "countryName", "businessCategory", "serialNumber", "jurisdictionCountryName", "markType"];

const TRADEMARK: Field[] = ["trademarkCountryOrRegionName", "trademarkIdentifier"];
const STATUTE: Field[] = ["statuteCountryName", "statuteCitation"];

/** §7.1.4.2.2 (m-o, s-v): the fields of one mark type, required and allowed; each is prohibited for the other types. */
const BY_MARK_TYPE: Record<string, { required: Field[]; allowed: Field[] }> = {
  "Registered Mark": { required: TRADEMARK, allowed: [...TRADEMARK, "trademarkOfficeName"] },
  "Modified Registered Mark": { required: TRADEMARK, allowed: [...TRADEMARK, "trademarkOfficeName"] },
  "Government Mark": { required: STATUTE, allowed: [...STATUTE, "statuteStateOrProvinceName", "statuteLocalityName", "statuteURL"] },
  "Prior Use Mark": { required: [], allowed: ["priorUseMarkSourceURL"] },
};
const TYPED_FIELDS = new Set(Object.values(BY_MARK_TYPE).flatMap((t) => t.allowed));

/** §7.1.4.2.2 (v): priorUseMarkSourceURL is required in a Prior Use Mark certificate issued on or after this day. */
const PRIOR_USE_URL_FROM = Date.UTC(2025, 3, 15);

/**
 * The subject fields of §7.1.4.2.2 for the certificate's mark type. Informational (validate.ts): a missing or
 * misplaced field is the CA's defect, and receivers honour the certificate the CA issued; the owner can only
 * ask the CA to reissue. A certificate without a known markType is judged on the fields every type carries.
 */
export function subjectFieldsCheck(leaf: ParsedCertificate): MarkCheck {
  const subject = leaf.cert.tbsCertificate.subject;
  const has = (f: Field) => nameValues(subject, FIELD[f]).length > 0;
  const markType = nameValues(subject, FIELD.markType)[0]?.trim();
  const type = markType === undefined ? undefined : BY_MARK_TYPE[markType];
  const problems: string[] = [];
  const missing = [...REQUIRED, ...(type?.required ?? [])].filter((f) => !has(f));
  if (missing.length > 0) problems.push(`missing ${missing.join(", ")}`);
  // (d, e): a locality or a state or province, at least one of the two.
  if (!has("localityName") && !has("stateOrProvinceName")) problems.push("neither localityName nor stateOrProvinceName");
  // (j, s): a locality-level jurisdiction (or statute) also names its state or province.
  if (has("jurisdictionLocalityName") && !has("jurisdictionStateOrProvinceName"))
    problems.push("jurisdictionLocalityName without jurisdictionStateOrProvinceName");
  if (markType === "Government Mark" && has("statuteLocalityName") && !has("statuteStateOrProvinceName")) {
    problems.push("statuteLocalityName without statuteStateOrProvinceName");
  }
  if (markType === "Prior Use Mark" && leaf.notBefore.getTime() >= PRIOR_USE_URL_FROM && !has("priorUseMarkSourceURL")) {
    problems.push("no priorUseMarkSourceURL (required in a Prior Use Mark certificate issued on or after 2025-04-15)");
  }
  if (type !== undefined) {
    const foreign = [...TYPED_FIELDS].filter((f) => has(f) && !type.allowed.includes(f));
    if (foreign.length > 0) problems.push(`${foreign.join(", ")}, which a ${markType} certificate must not carry`);
  }
  if (problems.length === 0)
    return { id: "subject-fields", ok: true, message: "The subject carries the fields the Mark Certificate Requirements ask of its mark type." };
  return {
    id: "subject-fields",
    ok: false,
    message: `The certificate's subject does not follow the Mark Certificate Requirements (§7.1.4.2.2): ${problems.join("; ")}. Receivers still honour a certificate its CA issued.`,
    fix: "Tell your CA: the subject fields are its to set, and a certificate it reissues should carry the fields of your mark type.",
  };
}

/** The Pilot identifier extension (§7.1.2.3 (i)): experimental content, not allowed from 2025-03-15 on. */
const PILOT_IDENTIFIER = "1.3.6.1.4.1.53087.4.1";
const PILOT_UNTIL = Date.UTC(2025, 2, 15);
/** id-ce-nameConstraints (RFC 5280 §4.2.1.10). */
const NAME_CONSTRAINTS = "2.5.29.30";

/**
 * Extensions this validation recognises in a mark certificate: RFC 5280 §4.2.1 (key identifiers, key usage,
 * certificate policies, alternative names, basic constraints, extended key usage, CRL distribution points,
 * authority information access), the RFC 3709 logotype, RFC 6962 §3.3 signed certificate timestamps, and the
 * MC Requirements' Pilot identifier. RFC 5280 §4.2: a certificate with a critical extension not among them
 * "MUST" be rejected.
 */
const RECOGNISED = new Set([
  "2.5.29.14", // subjectKeyIdentifier
  "2.5.29.35", // authorityKeyIdentifier
  "2.5.29.15", // keyUsage
  "2.5.29.32", // certificatePolicies
  "2.5.29.17", // subjectAltName
  "2.5.29.18", // issuerAltName
  "2.5.29.19", // basicConstraints
  "2.5.29.37", // extKeyUsage
  "2.5.29.31", // cRLDistributionPoints
  "1.3.6.1.5.5.7.1.1", // authorityInfoAccess
  "1.3.6.1.5.5.7.1.12", // logotype (RFC 3709)
  "1.3.6.1.4.1.11129.2.4.2", // signed certificate timestamp list (RFC 6962)
  NAME_CONSTRAINTS,
  PILOT_IDENTIFIER,
]);

/**
 * Extensions the certificate must not carry: nameConstraints in any Mark Certificate (§7.1.5; RFC 5280
 * §4.2.1.10 allows it only in CA certificates), the Pilot identifier in one issued on or after 2025-03-15
 * (§7.1.2.3 (i)), and any critical extension not recognised here (RFC 5280 §4.2). Blocking: such a certificate is outside the profile receivers validate against, and the
 * Pilot identifier is critical by rule, so a validator that does not know it must refuse it (RFC 5280 §4.2).
 */
export function extensionsCheck(leaf: ParsedCertificate): MarkCheck {
  const present = (oid: string) => leaf.cert.tbsCertificate.extensions?.some((e) => e.extnID === oid) === true;
  const problems: string[] = [];
  if (present(NAME_CONSTRAINTS)) problems.push("a nameConstraints extension, which Mark Certificates must not carry (§7.1.5)");
  if (present(PILOT_IDENTIFIER) && leaf.notBefore.getTime() >= PILOT_UNTIL) {
    problems.push("the Pilot identifier extension, not allowed in certificates issued on or after 2025-03-15 (§7.1.2.3)");
  }
  const unknown = (leaf.cert.tbsCertificate.extensions ?? []).filter((e) => e.critical && !RECOGNISED.has(e.extnID)).map((e) => e.extnID);
  if (unknown.length > 0) problems.push(`a critical extension this check does not recognise (${unknown.join(", ")}), which RFC 5280 §4.2 says to reject`);
  if (problems.length === 0) return { id: "extensions", ok: true, message: "No extension the Mark Certificate profile forbids." };
  return {
    id: "extensions",
    ok: false,
    message: `The certificate carries ${problems.join(" and ")}.`,
    fix: "Ask your CA to reissue the certificate under the current Mark Certificate profile.",
  };
}
