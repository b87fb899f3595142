// What a mark certificate says about its holder: the BIMI mark attributes, VMC or CMC, the names it covers,
// its key purpose and dates. No I/O.
import type { ParsedCertificate } from "./certificate";
import { dnsNames, extendedKeyUsage, nameValues } from "./certificate";
import type { MarkCheck, MarkReport } from "./types";

/** id-kp-BrandIndicatorforMessageIdentification (RFC 5280 §4.2.1.12 purpose; IANA SMI "PKIX Extended Key Purpose"). */
export const ID_KP_BIMI = "1.3.6.1.5.5.7.3.31";

/** Subject attributes of the BIMI Group's private arc 1.3.6.1.4.1.53087 (VMC guidelines, Appendix "Subject"). */
const OID = {
  organization: "2.5.4.10",
  commonName: "2.5.4.3",
  trademarkCountry: "1.3.6.1.4.1.53087.1.3",
  trademarkRegistration: "1.3.6.1.4.1.53087.1.4",
  markType: "1.3.6.1.4.1.53087.1.13",
} as const;

export function subjectOf(leaf: ParsedCertificate): MarkReport["subject"] {
  const out: MarkReport["subject"] = {};
  for (const [key, oid] of Object.entries(OID) as [keyof typeof OID, string][]) {
    const v = nameValues(leaf.cert.tbsCertificate.subject, oid)[0];
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/**
 * VMC or CMC, from the markType attribute (VMC guidelines: "Registered Mark" and "Government Mark" are
 * verified marks; "Prior Use Mark" and "Modified Registered Mark" are the common-mark kinds). Certificates
 * issued before markType existed are VMCs when they carry a trademark registration, as mailauth reads them.
 */
export function markKind(subject: MarkReport["subject"]): MarkReport["kind"] {
  const t = subject.markType?.trim().toLowerCase();
  if (t === "registered mark" || t === "government mark") return "VMC";
  if (t === "prior use mark" || t === "modified registered mark") return "CMC";
  if (t === undefined && subject.trademarkRegistration) return "VMC";
  return null;
}

export function kindCheck(kind: MarkReport["kind"], subject: MarkReport["subject"]): MarkCheck {
  if (kind === "VMC") return { id: "mark-type", ok: true, message: `Verified Mark Certificate (${subject.markType ?? "registered trademark"}).` };
  if (kind === "CMC") return { id: "mark-type", ok: true, message: `Common Mark Certificate (${subject.markType}).` };
  return {
    id: "mark-type",
    ok: null,
    message: `The certificate does not say which kind of mark it certifies${subject.markType ? ` ("${subject.markType}" is not a known mark type)` : ""}.`,
    fix: "Ask your CA which mark type the certificate was issued for; a VMC or CMC names it in the subject.",
  };
}

export function ekuCheck(leaf: ParsedCertificate): MarkCheck {
  const eku = extendedKeyUsage(leaf);
  if (eku?.includes(ID_KP_BIMI)) return { id: "eku", ok: true, message: "Issued for BIMI (id-kp-BrandIndicatorforMessageIdentification)." };
  return {
    id: "eku",
    ok: false,
    message: "The certificate is not issued for BIMI: it lacks the id-kp-BrandIndicatorforMessageIdentification key purpose (1.3.6.1.5.5.7.3.31).",
    fix: "Use a Verified Mark Certificate or Common Mark Certificate; a TLS or other certificate is not accepted for BIMI.",
  };
}

export function validityCheck(leaf: ParsedCertificate, now: Date): MarkCheck {
  const fix = "Renew the mark certificate with your CA and publish the new PEM file at a=.";
  if (now < leaf.notBefore) return { id: "validity", ok: false, message: `The certificate is not valid before ${leaf.notBefore.toISOString()}.`, fix };
  if (now > leaf.notAfter) return { id: "validity", ok: false, message: `The certificate expired on ${leaf.notAfter.toISOString()}.`, fix };
  return { id: "validity", ok: true, message: `Valid until ${leaf.notAfter.toISOString()}.` };
}

const norm = (d: string) => d.trim().toLowerCase().replace(/\.+$/, "");

/**
 * The names the certificate covers must include the BIMI record's domain (docs/decisions.md D210): the
 * selector name <selector>._bimi.<domain>, the domain itself, or a parent of it (the Organizational Domain
 * a receiver falls back to, BIMI draft §7.2), and the selector name at such a parent.
 */
export function sanCheck(leaf: ParsedCertificate, domain: string, selector: string): { sans: string[]; check: MarkCheck } {
  const sans = dnsNames(leaf).map(norm);
  const d = norm(domain);
  const s = norm(selector);
  const covers = (san: string) => {
    const bare = san.startsWith(`${s}._bimi.`) ? san.slice(s.length + 7) : san.includes("._bimi.") ? null : san;
    return bare !== null && bare !== "" && (bare === d || d.endsWith(`.${bare}`));
  };
  const match = sans.find(covers);
  if (match !== undefined) return { sans, check: { id: "san", ok: true, message: `The certificate covers ${d} (as ${match}).` } };
  return {
    sans,
    check: {
      id: "san",
      ok: false,
      message: `The certificate is for ${sans.join(", ") || "no domain name"}, not for ${d} with selector ${s}.`,
      fix: `Publish BIMI under a domain the certificate names, or ask your CA for a certificate that includes ${d}.`,
    },
  };
}
