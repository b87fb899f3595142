// Minimal DER reader for RSA public keys: SPKI (RFC 5280 §4.1) and PKCS#1 RSAPublicKey (RFC 8017 A.1.1). No I/O.

interface Tlv {
  tag: number;
  start: number;
  end: number;
  next: number;
} // content [start, end)

function readTlv(d: Uint8Array, pos: number, limit: number): Tlv | null {
  if (pos + 2 > limit) return null;
  const tag = d[pos] ?? 0;
  let len = d[pos + 1] ?? 0;
  let p = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > limit) return null; // indefinite lengths are not DER
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (d[p + i] ?? 0);
    p += n;
  }
  if (p + len > limit) return null;
  return { tag, start: p, end: p + len, next: p + len };
}

const RSA_OID = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]; // 1.2.840.113549.1.1.1
const ED25519_OID = [0x2b, 0x65, 0x70]; // 1.3.101.112 (RFC 8410)

export type DerKey =
  | { kind: "rsa-spki"; bits: number; spki: Uint8Array }
  | { kind: "rsa-pkcs1"; bits: number; spki: Uint8Array }
  | { kind: "ed25519-spki"; raw: Uint8Array };

/** Bit length of a DER INTEGER's magnitude (leading zero octets and bits ignored). */
function integerBits(d: Uint8Array, t: Tlv): number {
  let i = t.start;
  while (i < t.end && d[i] === 0) i++;
  if (i === t.end) return 0;
  return (t.end - i - 1) * 8 + (32 - Math.clz32(d[i] ?? 0));
}

/** RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER } → modulus bits. */
function rsaPublicKeyBits(d: Uint8Array, start: number, end: number): number | null {
  const seq = readTlv(d, start, end);
  if (seq?.tag !== 0x30 || seq.next !== end) return null;
  const n = readTlv(d, seq.start, seq.end);
  if (n?.tag !== 0x02) return null;
  const e = readTlv(d, n.next, seq.end);
  if (e?.tag !== 0x02 || e.next !== seq.end) return null;
  return integerBits(d, n);
}

/** Parse the bytes of a DKIM p= value. Returns null for anything that is not a well-formed key. */
export function parsePublicKeyDer(d: Uint8Array): DerKey | null {
  const outer = readTlv(d, 0, d.length);
  if (outer?.tag !== 0x30 || outer.next !== d.length) return null;
  const first = readTlv(d, outer.start, outer.end);
  if (!first) return null;
  if (first.tag === 0x02) {
    // Some publishers put a bare PKCS#1 RSAPublicKey in p=; dkimpy and OpenDKIM accept it.
    const bits = rsaPublicKeyBits(d, 0, d.length);
    return bits === null ? null : { kind: "rsa-pkcs1", bits, spki: wrapPkcs1(d) };
  }
  if (first.tag !== 0x30) return null;
  const oid = readTlv(d, first.start, first.end);
  if (oid?.tag !== 0x06) return null;
  const oidBytes = Array.from(d.subarray(oid.start, oid.end));
  const bitString = readTlv(d, first.next, outer.end);
  if (bitString?.tag !== 0x03 || d[bitString.start] !== 0) return null;
  if (sameBytes(oidBytes, RSA_OID)) {
    const bits = rsaPublicKeyBits(d, bitString.start + 1, bitString.end);
    return bits === null ? null : { kind: "rsa-spki", bits, spki: d };
  }
  if (sameBytes(oidBytes, ED25519_OID) && bitString.end - bitString.start === 33) {
    return { kind: "ed25519-spki", raw: d.slice(bitString.start + 1, bitString.end) };
  }
  return null;
}

const sameBytes = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

function derLength(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return [0x80 | out.length, ...out];
}

/** Wrap a PKCS#1 RSAPublicKey in an SPKI so WebCrypto's "spki" import accepts it. */
export function wrapPkcs1(pkcs1: Uint8Array): Uint8Array {
  const algId = [0x30, 0x0d, 0x06, 0x09, ...RSA_OID, 0x05, 0x00];
  const bitStr = [0x03, ...derLength(pkcs1.length + 1), 0x00];
  const inner = algId.length + bitStr.length + pkcs1.length;
  const head = [0x30, ...derLength(inner), ...algId, ...bitStr];
  const out = new Uint8Array(head.length + pkcs1.length);
  out.set(head, 0);
  out.set(pkcs1, head.length);
  return out;
}
