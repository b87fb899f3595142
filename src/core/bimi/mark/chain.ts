// Certification path from the mark certificate to a BIMI-trusted root (RFC 5280 §6.1, the basics): names chain,
// every signature verifies, every issuer is a CA valid at the time. No I/O; signatures through WebCrypto.
import { isCa, type ParsedCertificate, pathLength, selfIssued } from "./certificate";
import { sameBytes } from "./der";
import { verifySignature } from "./signature";
import type { MarkCheck } from "./types";

export interface Anchor {
  name: string;
  cert: ParsedCertificate;
}

export interface ChainOutcome {
  /** Leaf first; ends with the trusted root when one was reached. */
  path: ParsedCertificate[];
  root: Anchor | null;
  chain: MarkCheck;
  trust: MarkCheck;
}

/** A path longer than this is not a mark-certificate chain (issuers use one intermediate, at most two). */
const MAX_DEPTH = 6;

/**
 * RFC 5280 §6.1.4 (l)-(m): an issuer's pathLenConstraint bounds the CA certificates that may follow it
 * towards the leaf, self-issued ones not counted. `below`: the path from the leaf up to the issuer.
 */
function pathLengthProblem(issuer: ParsedCertificate, below: ParsedCertificate[]): string | null {
  const limit = pathLength(issuer);
  const intermediates = below.slice(1).filter((c) => !selfIssued(c)).length;
  return limit !== null && intermediates > limit
    ? `an issuing certificate allows ${limit} intermediate certificate(s) below it but the chain has ${intermediates} (RFC 5280 §4.2.1.9)`
    : null;
}

const withinValidity = (c: ParsedCertificate, now: Date) => c.notBefore <= now && now <= c.notAfter;

const CHAIN_FIX = "Publish the full chain in the PEM file at a=: your certificate first, then the intermediate certificate(s) your CA gave you, in order.";
const TRUST_FIX =
  "Get the certificate from a BIMI-recognised mark certificate issuer (DigiCert, GlobalSign or SSL.com); a self-made or other certificate is not accepted by mailbox providers.";

export async function buildChain(bundle: ParsedCertificate[], anchors: Anchor[], now: Date): Promise<ChainOutcome> {
  const leaf = bundle[0];
  if (leaf === undefined) throw new Error("empty bundle");
  const path: ParsedCertificate[] = [leaf];
  const unused = bundle.slice(1);
  const problems: string[] = [];
  let current = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    // The bundle itself may carry the root: trust it only when it is byte-for-byte one of the anchors.
    const sameAsAnchor = anchors.find((a) => sameBytes(a.cert.der, current.der));
    if (sameAsAnchor && depth > 0) return done(path, sameAsAnchor, problems);
    // A self-issued leaf is refused whatever its name: only a CA-issued certificate can certify a mark.
    const candidates = depth === 0 && selfIssued(current) ? [] : anchors.filter((a) => sameBytes(a.cert.subjectDer, current.issuerDer));
    let forged: string | null = null;
    for (const anchor of candidates) {
      const v = await verifySignature(current, anchor.cert);
      if (v.ok) {
        if (!withinValidity(anchor.cert, now)) problems.push(`the root "${anchor.name}" is not valid at this time`);
        const tooLong = pathLengthProblem(anchor.cert, path);
        if (tooLong !== null) problems.push(tooLong);
        path.push(anchor.cert);
        return done(path, anchor, problems);
      }
      forged = `a certificate names the BIMI root "${anchor.name}" as its issuer, but ${v.reason} with that root's key`;
    }
    if (forged !== null && !unused.some((c) => sameBytes(c.subjectDer, current.issuerDer))) {
      return {
        path,
        root: null,
        chain: { id: "chain", ok: false, message: `The chain is broken: ${forged}.`, fix: CHAIN_FIX },
        trust: { id: "trusted-root", ok: false, message: "No BIMI-trusted root signed this chain.", fix: TRUST_FIX },
      };
    }
    if (selfIssued(current)) {
      const what = depth === 0 ? "the certificate is self-signed" : "the chain ends at a self-signed root that no BIMI issuer uses";
      return {
        path,
        root: null,
        chain:
          problems.length === 0
            ? { id: "chain", ok: true, message: "The certificates in the file chain together." }
            : { id: "chain", ok: false, message: `The chain is broken: ${problems.join("; ")}.`, fix: CHAIN_FIX },
        trust: { id: "trusted-root", ok: false, message: `Not trusted: ${what}.`, fix: TRUST_FIX },
      };
    }
    const next = unused.findIndex((c) => sameBytes(c.subjectDer, current.issuerDer));
    const issuer = unused[next];
    if (issuer === undefined) {
      return {
        path,
        root: null,
        chain: { id: "chain", ok: false, message: "The chain is incomplete: the issuer of a certificate in the file is missing.", fix: CHAIN_FIX },
        trust: { id: "trusted-root", ok: false, message: "No BIMI-trusted root is reached from this certificate.", fix: TRUST_FIX },
      };
    }
    unused.splice(next, 1);
    const v = await verifySignature(current, issuer);
    if (v.ok !== true) problems.push(`a certificate's signature by its issuer cannot be verified: ${v.reason}`);
    if (!isCa(issuer)) problems.push("an issuing certificate in the chain is not a certificate authority (RFC 5280 §4.2.1.9)");
    if (!withinValidity(issuer, now)) problems.push("an intermediate certificate is expired or not yet valid");
    const tooLong = pathLengthProblem(issuer, path);
    if (tooLong !== null) problems.push(tooLong);
    path.push(issuer);
    current = issuer;
  }
  return {
    path,
    root: null,
    chain: { id: "chain", ok: false, message: "The chain is too long to be a mark-certificate chain.", fix: CHAIN_FIX },
    trust: { id: "trusted-root", ok: false, message: "No BIMI-trusted root is reached from this certificate.", fix: TRUST_FIX },
  };
}

function done(path: ParsedCertificate[], root: Anchor, problems: string[]): ChainOutcome {
  return {
    path,
    root,
    chain:
      problems.length === 0
        ? { id: "chain", ok: true, message: `The chain verifies: ${path.length} certificate(s), every signature checked.` }
        : { id: "chain", ok: false, message: `The chain is broken: ${problems.join("; ")}.`, fix: CHAIN_FIX },
    trust: { id: "trusted-root", ok: true, message: `Issued under a BIMI-trusted root (${root.name}).` },
  };
}
