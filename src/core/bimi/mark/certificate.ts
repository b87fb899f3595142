// One X.509 certificate read with the @peculiar ASN.1 schemas (RFC 5280 §4.1), the fields validation needs. No I/O.
import { AsnParser } from "@peculiar/asn1-schema";
import {
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  KeyUsage,
  KeyUsageFlags,
  type Name,
  SubjectAlternativeName,
} from "@peculiar/asn1-x509";
import { sameBytes, tbsBytes, tbsParts } from "./der";

export interface ParsedCertificate {
  der: Uint8Array;
  /** The signed bytes (RFC 5280 §4.1.1.3). */
  tbs: Uint8Array;
  cert: Certificate;
  subjectDer: Uint8Array;
  issuerDer: Uint8Array;
  spkiDer: Uint8Array;
  notBefore: Date;
  notAfter: Date;
}

export function parseCertificate(der: Uint8Array): ParsedCertificate | null {
  try {
    const tbs = tbsBytes(der);
    const parts = tbs === null ? null : tbsParts(tbs);
    if (tbs === null || parts === null) return null;
    const cert = AsnParser.parse(der, Certificate);
    const t = cert.tbsCertificate;
    // Names and key as encoded, sliced rather than re-encoded: what the issuer signed, and half the cost.
    return {
      der,
      tbs,
      cert,
      subjectDer: parts.subject,
      issuerDer: parts.issuer,
      spkiDer: parts.spki,
      notBefore: t.validity.notBefore.getTime(),
      notAfter: t.validity.notAfter.getTime(),
    };
  } catch {
    return null;
  }
}

function extension<T>(c: ParsedCertificate, oid: string, type: new () => T): T | null {
  const ext = c.cert.tbsCertificate.extensions?.find((e) => e.extnID === oid);
  if (ext === undefined) return null;
  return AsnParser.parse(ext.extnValue, type);
}

export const extensionValue = (c: ParsedCertificate, oid: string): ArrayBuffer | null =>
  c.cert.tbsCertificate.extensions?.find((e) => e.extnID === oid)?.extnValue.buffer ?? null;

/** RFC 5280 §4.2.1.9: only a certificate with cA TRUE may sign others; §4.2.1.3: keyCertSign when keyUsage is present. */
export function isCa(c: ParsedCertificate): boolean {
  const bc = extension(c, id_ce_basicConstraints, BasicConstraints);
  if (bc === null || !bc.cA) return false;
  const ku = extension(c, id_ce_keyUsage, KeyUsage);
  return ku === null || (ku.toNumber() & KeyUsageFlags.keyCertSign) !== 0;
}

/** pathLenConstraint of a CA (RFC 5280 §4.2.1.9); null when the CA sets no limit. */
export const pathLength = (c: ParsedCertificate): number | null => extension(c, id_ce_basicConstraints, BasicConstraints)?.pathLenConstraint ?? null;

/** Extended key usage purposes (RFC 5280 §4.2.1.12); null when the extension is absent. */
export const extendedKeyUsage = (c: ParsedCertificate): string[] | null => {
  const eku = extension(c, id_ce_extKeyUsage, ExtendedKeyUsage);
  return eku === null ? null : [...eku];
};

/** dNSName entries of the subject alternative name (RFC 5280 §4.2.1.6), lower-cased. */
export const dnsNames = (c: ParsedCertificate): string[] =>
  [...(extension(c, id_ce_subjectAltName, SubjectAlternativeName) ?? [])].flatMap((g) => (g.dNSName ? [g.dNSName.toLowerCase()] : []));

/** Subject and issuer are the same name (RFC 5280 §6.1: a self-issued certificate). */
export const selfIssued = (c: ParsedCertificate): boolean => sameBytes(c.subjectDer, c.issuerDer);

/** The values of one attribute type in a name, in order. */
export const nameValues = (name: Name, oid: string): string[] =>
  name.flatMap((rdn) => rdn.filter((atv) => atv.type === oid).map((atv) => atv.value.toString()));

const SHORT: Record<string, string> = { "2.5.4.3": "CN", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.6": "C" };

/** A readable issuer line, "CN=..., O=..., C=..." (the name attributes people recognise, most specific first). */
export function describeName(name: Name): string {
  const parts: string[] = [];
  for (const oid of ["2.5.4.3", "2.5.4.10", "2.5.4.6"]) {
    for (const v of nameValues(name, oid)) parts.push(`${SHORT[oid]}=${v}`);
  }
  return parts.join(", ");
}
