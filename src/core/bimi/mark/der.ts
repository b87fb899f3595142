// Byte helpers for certificates: PEM armour (RFC 7468), DER element boundaries (X.690 §8.1), hex and base64. No I/O.

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

export function base64ToBytes(b64: string): Uint8Array | null {
  try {
    const bin = atob(b64.replace(/\s+/g, ""));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** Every CERTIFICATE block of a bundle, in order (RFC 7468 §5: text outside the blocks is ignored). */
export function pemCertificates(pem: string): Uint8Array[] | null {
  const out: Uint8Array[] = [];
  for (const m of pem.matchAll(PEM_BLOCK)) {
    const der = base64ToBytes(m[1] ?? "");
    if (der === null || der.length === 0) return null;
    out.push(der);
  }
  return out;
}

export function toPem(der: Uint8Array): string {
  let bin = "";
  for (const b of der) bin += String.fromCharCode(b);
  const lines = btoa(bin).match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}

interface Element {
  /** Offset of the identifier octet. */
  start: number;
  /** Offset just past the contents. */
  end: number;
  /** Offset of the contents. */
  body: number;
}

/** One DER element at `at` (definite lengths only: X.690 §10.1 forbids the indefinite form in DER). */
export function derElement(bytes: Uint8Array, at: number): Element | null {
  if (at + 2 > bytes.length) return null;
  let p = at + 1;
  const first = bytes[p++] ?? 0;
  let len = first;
  if (first & 0x80) {
    const n = first & 0x7f;
    if (n === 0 || n > 4 || p + n > bytes.length) return null;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (bytes[p++] ?? 0);
  }
  if (p + len > bytes.length) return null;
  return { start: at, end: p + len, body: p };
}

/** The children of a constructed element (a SEQUENCE). */
export function derChildren(bytes: Uint8Array, parent: Element): Element[] | null {
  const out: Element[] = [];
  let at = parent.body;
  while (at < parent.end) {
    const e = derElement(bytes, at);
    if (e === null || e.end > parent.end) return null;
    out.push(e);
    at = e.end;
  }
  return out;
}

/**
 * The exact tbsCertificate bytes, which the signature covers (RFC 5280 §4.1.1.3). Sliced from the
 * original encoding rather than re-encoded, so a certificate that is not perfectly DER still verifies
 * the way its issuer signed it.
 */
export function tbsBytes(cert: Uint8Array): Uint8Array | null {
  const outer = derElement(cert, 0);
  if (outer === null) return null;
  const tbs = derElement(cert, outer.body);
  return tbs === null ? null : cert.subarray(tbs.start, tbs.end);
}

/** Issuer, subject and subjectPublicKeyInfo of a tbsCertificate (RFC 5280 §4.1), as their exact encodings. */
export function tbsParts(tbs: Uint8Array): { issuer: Uint8Array; subject: Uint8Array; spki: Uint8Array } | null {
  const seq = derElement(tbs, 0);
  const kids = seq === null ? null : derChildren(tbs, seq);
  if (kids === null) return null;
  // version is [0] EXPLICIT and optional (absent in v1 certificates).
  const at = tbs[kids[0]?.start ?? 0] === 0xa0 ? 1 : 0;
  const [issuer, , subject, spki] = kids.slice(at + 2, at + 6);
  if (!issuer || !subject || !spki) return null;
  const bytes = (e: Element) => tbs.subarray(e.start, e.end);
  return { issuer: bytes(issuer), subject: bytes(subject), spki: bytes(spki) };
}

/** An encoded OBJECT IDENTIFIER (X.690 §8.19) as its dotted string. */
export function oidFromDer(bytes: Uint8Array): string | null {
  const el = derElement(bytes, 0);
  if (el === null || bytes[0] !== 0x06) return null;
  const body = bytes.subarray(el.body, el.end);
  if (body.length === 0) return null;
  const first = body[0] ?? 0;
  const out = [Math.min(2, Math.floor(first / 40)), first - Math.min(2, Math.floor(first / 40)) * 40];
  let v = 0;
  for (const b of body.subarray(1)) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      out.push(v);
      v = 0;
    }
  }
  return out.join(".");
}

export const hex = (bytes: ArrayBuffer | Uint8Array): string =>
  [...(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

export function sameBytes(a: ArrayBuffer | Uint8Array, b: ArrayBuffer | Uint8Array): boolean {
  const x = a instanceof Uint8Array ? a : new Uint8Array(a);
  const y = b instanceof Uint8Array ? b : new Uint8Array(b);
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
