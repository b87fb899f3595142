// Produces a DKIM-Signature for a raw message (RFC 6376 §5) with WebCrypto. No I/O. Test aid and future signer.
import { err, ok, type Result } from "../types";
import { BodyHashes } from "./body-canon";
import { base64Encode, encodeText, fromPem } from "./bytes";
import { signedHeaderData } from "./canonicalize";
import { importPrivateKey, signData } from "./crypto";
import { parseMessage, type HeaderField } from "./message";
import type { Canon, SigAlgorithm } from "./signature";

export interface SignOptions {
  domain: string;
  selector: string;
  /** PKCS#8 PEM (as generateKeyPair returns) or an imported signing key. */
  privateKey: string | CryptoKey;
  algorithm: SigAlgorithm;
  canonicalization?: `${Canon}/${Canon}`; // default relaxed/relaxed
  /** h= list; default: the usual fields present in the message, plus From once more (over-signing, §5.4.2). */
  headers?: string[];
  identity?: string; // i=
  timestamp?: number | null; // t=, default now; null omits it
  expiration?: number; // x=
  bodyLength?: number; // l=
}

const DEFAULT_HEADERS = [
  "from",
  "to",
  "cc",
  "subject",
  "date",
  "message-id",
  "reply-to",
  "in-reply-to",
  "references",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
];

/**
 * Returns the message (CRLF-normalized) with the new DKIM-Signature field prepended. For byte
 * input the result is a binary string (one char per octet): encode it with binaryToBytes.
 */
export async function signMessage(raw: string | Uint8Array, o: SignOptions): Promise<Result<string>> {
  const msg = parseMessage(raw);
  const [hc, bc] = (o.canonicalization ?? "relaxed/relaxed").split("/") as [Canon, Canon];
  const keyType = o.algorithm.startsWith("ed25519") ? "ed25519" : "rsa";
  const hash = o.algorithm.endsWith("sha1") ? "sha1" : "sha256";
  let key: CryptoKey;
  if (typeof o.privateKey === "string") {
    const der = fromPem(o.privateKey);
    if (der === null) return err("private key is not PEM");
    try {
      key = await importPrivateKey(der, keyType, hash);
    } catch (e) {
      return err(`private key import failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  } else key = o.privateKey;

  const present = new Set(msg.headers.map((h) => h.key));
  const names = o.headers ?? [...DEFAULT_HEADERS.filter((h) => present.has(h)), "from"];
  if (!names.some((h) => h.toLowerCase() === "from")) return err("h= must include From (RFC 6376 §5.4)");

  const bh = base64Encode((await new BodyHashes(msg.bodyBytes).hash(bc, hash, o.bodyLength ?? null)).hash);
  const t = o.timestamp === undefined ? Math.floor(Date.now() / 1000) : o.timestamp;
  const tags = [
    "v=1",
    `a=${o.algorithm}`,
    `c=${hc}/${bc}`,
    `d=${o.domain}`,
    `s=${o.selector}`,
    ...(o.identity !== undefined ? [`i=${o.identity}`] : []),
    ...(t !== null ? [`t=${t}`] : []),
    ...(o.expiration !== undefined ? [`x=${o.expiration}`] : []),
    ...(o.bodyLength !== undefined ? [`l=${o.bodyLength}`] : []),
  ];
  // Folded like real signers do, so simple header canonicalization is exercised with FWS.
  const value = ` ${tags.join("; ")};\r\n\th=${names.join(":")};\r\n\tbh=${bh};\r\n\tb=`;
  const field: HeaderField = { name: "DKIM-Signature", key: "dkim-signature", raw: `DKIM-Signature:${value}`, value };
  const data = encodeText(signedHeaderData(msg.headers, names, field, hc), msg.binary);
  const b = base64Encode(await signData(key, keyType, data));
  const folded = b.replace(/(.{72})(?=.)/g, "$1\r\n\t"); // FWS inside b= is allowed (§3.5)
  const headerBlock = msg.headers.map((h) => `${h.raw}\r\n`).join("");
  return ok(`${field.raw}${folded}\r\n${headerBlock}\r\n${msg.body}`);
}
