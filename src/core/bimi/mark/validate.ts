// validateMarkCertificate: a VMC/CMC PEM bundle judged as a BIMI receiver would (draft-fetch-validation-vmc-wchuang,
// the BIMI Group's VMC guidelines): path to a BIMI-trusted root, key purpose, dates, names, embedded logo. No I/O.
import { inspectSvg } from "../svg";
import { type ParsedCertificate, parseCertificate, describeName, selfIssued } from "./certificate";
import { type Anchor, buildChain } from "./chain";
import { hex, pemCertificates, sameBytes } from "./der";
import { ekuCheck, kindCheck, markKind, sanCheck, subjectOf, validityCheck } from "./identity";
import { embeddedLogo } from "./logotype";
import { extensionsCheck, subjectFieldsCheck } from "./profile";
import { BIMI_ROOTS } from "./roots";
import { verifySignature } from "./signature";
import type { MarkCheck, MarkOptions, MarkReport } from "./types";

/**
 * Checks that inform without deciding: a certificate whose mark type is not stated, or whose subject lacks a
 * field the CA should have set, is still honoured by receivers (docs/decisions.md D261).
 */
export const INFORMATIONAL = new Set(["mark-type", "subject-fields"]);

let defaultAnchors: Anchor[] | null = null;

function anchorsOf(roots: string[] | undefined): Anchor[] {
  if (roots === undefined && defaultAnchors !== null) return defaultAnchors;
  const source = roots === undefined ? BIMI_ROOTS : roots.map((pem, i) => ({ name: `root ${i + 1}`, pem }));
  const out: Anchor[] = [];
  for (const r of source) {
    for (const der of pemCertificates(r.pem) ?? []) {
      const cert = parseCertificate(der);
      if (cert !== null) out.push({ name: r.name, cert });
    }
  }
  if (roots === undefined) defaultAnchors = out;
  return out;
}

const empty = (checks: MarkCheck[]): MarkReport => ({
  kind: null,
  valid: false,
  checks,
  subject: {},
  notBefore: null,
  notAfter: null,
  issuer: null,
  sans: [],
  embeddedSvg: null,
  embeddedSvgSha256: null,
});

const PEM_FIX = "Publish the certificate as PEM text (-----BEGIN CERTIFICATE----- blocks), your certificate first, then its intermediates.";

/** Text that differs only in whitespace and line endings: worth saying when the bytes do not match. */
const squeeze = (s: string) => s.replace(/\s+/g, "");

async function logoMatchCheck(logoSvg: string, embedded: Uint8Array | null, embeddedText: string | null): Promise<MarkCheck> {
  const fix = "Publish (or upload) exactly the SVG file embedded in your certificate: download it from the report and use it as your logo.";
  if (embedded === null || embeddedText === null) return { id: "logo-match", ok: null, message: "The certificate carries no logo to compare with." };
  // Exact bytes (compared by SHA-256): receivers that compare the l= logo with the certificate hash the bytes.
  const published = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(logoSvg)));
  const inCert = new Uint8Array(await crypto.subtle.digest("SHA-256", embedded));
  if (sameBytes(published, inCert)) return { id: "logo-match", ok: true, message: "The published logo is byte-for-byte the SVG in the certificate." };
  const nearly = squeeze(logoSvg) === squeeze(embeddedText);
  return {
    id: "logo-match",
    ok: false,
    message: nearly
      ? "The published logo differs from the SVG in the certificate only in whitespace or line endings; receivers compare the exact file."
      : "The published logo is not the SVG in the certificate.",
    fix,
  };
}

function embeddedSvgCheck(text: string, bytes: number): MarkCheck {
  const bad = inspectSvg(text, bytes).filter((f) => f.severity !== "Info");
  if (bad.length === 0) return { id: "embedded-svg", ok: true, message: "The embedded logo follows the SVG Tiny PS profile." };
  return {
    id: "embedded-svg",
    ok: false,
    message: `The embedded logo breaks the SVG Tiny PS profile: ${bad.map((f) => f.description).join(" ")}`,
    fix: "Ask your CA to reissue the certificate with an SVG Tiny PS logo (fix the SVG first, then have it embedded).",
  };
}

export async function validateMarkCertificate(pem: string, opts: MarkOptions): Promise<MarkReport> {
  const ders = pemCertificates(pem);
  if (ders === null || ders.length === 0) {
    return empty([{ id: "parse", ok: false, message: "No certificate found: the file is not a PEM certificate bundle.", fix: PEM_FIX }]);
  }
  const bundle: ParsedCertificate[] = [];
  for (const der of ders) {
    const c = parseCertificate(der);
    if (c === null) return empty([{ id: "parse", ok: false, message: `Certificate ${bundle.length + 1} of the file cannot be read as X.509.`, fix: PEM_FIX }]);
    bundle.push(c);
  }
  const leaf = bundle[0] as ParsedCertificate;
  const checks: MarkCheck[] = [{ id: "parse", ok: true, message: `${bundle.length} certificate(s) read.` }];

  const chain = await buildChain(bundle, anchorsOf(opts.roots), opts.now);
  // RFC 5280 §3.2: self-signed = self-issued and verifiable with its own key.
  const selfSigned = selfIssued(leaf) && (await verifySignature(leaf, leaf)).ok === true;
  checks.push(
    selfSigned
      ? {
          id: "not-self-signed",
          ok: false,
          message: "The certificate is self-signed: anyone can make one, so receivers ignore it.",
          fix: "Buy a VMC or CMC from a BIMI-recognised issuer.",
        }
      : { id: "not-self-signed", ok: true, message: "The certificate is issued by a CA." },
  );
  checks.push(chain.chain, chain.trust, validityCheck(leaf, opts.now), ekuCheck(leaf));
  const { sans, check: san } = sanCheck(leaf, opts.domain, opts.selector);
  checks.push(san);

  const subject = subjectOf(leaf);
  const kind = markKind(subject);
  checks.push(kindCheck(kind, subject), subjectFieldsCheck(leaf), extensionsCheck(leaf));

  const logo = await embeddedLogo(leaf);
  checks.push(logo.logotype, logo.hash);
  const text = logo.svg === null ? null : new TextDecoder().decode(logo.svg);
  if (text !== null && logo.svg !== null) checks.push(embeddedSvgCheck(text, logo.svg.length));
  if (opts.logoSvg !== undefined && opts.logoSvg !== null) checks.push(await logoMatchCheck(opts.logoSvg, logo.svg, text));

  return {
    kind,
    valid: checks.every((c) => c.ok === true || INFORMATIONAL.has(c.id)),
    checks,
    subject,
    notBefore: leaf.notBefore.toISOString(),
    notAfter: leaf.notAfter.toISOString(),
    issuer: describeName(leaf.cert.tbsCertificate.issuer) || null,
    sans,
    embeddedSvg: text,
    embeddedSvgSha256: logo.svg === null ? null : hex(await crypto.subtle.digest("SHA-256", logo.svg)),
  };
}
