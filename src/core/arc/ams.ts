// Verifies one ARC-Message-Signature (RFC 8617 §4.1.2) with the DKIM verifier; DNS I/O only
// through the Resolver port.
import type { Resolver } from "../dns/types";
import type { BodyHashes } from "../dkim/body-canon";
import type { DkimKeyCache } from "../dkim/key-cache";
import type { HeaderField, ParsedMessage } from "../dkim/message";
import { verifyOneSignature, type SignatureReport } from "../dkim/verify-signature";

const HAS_C_TAG = /(?:^|;)[ \t\r\n]*c[ \t\r\n]*=/;

export async function verifyAms(
  field: HeaderField,
  msg: ParsedMessage,
  resolver: Resolver,
  now: Date,
  bodies: BodyHashes,
  keys: DkimKeyCache,
): Promise<SignatureReport> {
  let r = await verifyOneSignature(field, msg, resolver, now, bodies, keys, { arc: true });
  // An AMS without c= is simple/simple by RFC 6376 §3.5, which RFC 8617 §4.1.2 imports; but ARC
  // signers canonicalize relaxed, and the shared ARC suite (ams_fields_c_na), dkimpy and mailauth's
  // lenient mode accept relaxed/relaxed there. Both are tried: either way the signer's key signed
  // exactly that data (docs/decisions.md D201).
  if (r.result === "fail" && !HAS_C_TAG.test(field.value)) {
    const relaxed = await verifyOneSignature(field, msg, resolver, now, bodies, keys, { arc: true, defaultCanon: "relaxed/relaxed" });
    if (relaxed.result !== "fail") r = relaxed;
  }
  // RFC 8617 §4.1.2: ARC-Seal header fields must not be in h= (the seal signs the AMS, not the
  // reverse); the shared ARC suite (ams_fields_h_includes_as), dkimpy and mailauth all refuse such
  // an AMS. The suite accepts the other ARC fields in h= (its AMSs all sign the AAR).
  if (r.headers.some((h) => h.toLowerCase() === "arc-seal")) {
    return { ...r, result: "permerror", reason: "h= lists ARC-Seal, which an ARC-Message-Signature must not sign (RFC 8617 §4.1.2)" };
  }
  return r;
}
