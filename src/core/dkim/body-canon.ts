// DKIM body canonicalization over octets (RFC 6376 §3.4.3, §3.4.4) and the per-message body hashes
// (§3.7, l= per §3.4.5). One pass over the body per canonicalization, no strings. No I/O.
import { sha } from "./bytes";
import { hasCtlOrSpace, wordView } from "./words";
import type { Canon } from "./signature";

const CR = 13;
const LF = 10;
const SP = 32;
const TAB = 9;
const CRLF = new Uint8Array([CR, LF]);
const EMPTY = new Uint8Array(0);

/**
 * §3.4.3 simple: remove all empty lines at the end; an empty body becomes one CRLF. The result is a
 * view of the input whenever the body already ends in exactly one CRLF (the usual case): no copy.
 * Input must be CRLF-normalized (message.ts).
 */
export function canonBodySimpleBytes(body: Uint8Array): Uint8Array {
  let end = body.length;
  while (end >= 2 && body[end - 1] === LF && body[end - 2] === CR) end -= 2;
  if (end === 0) return CRLF;
  if (end + 2 <= body.length) return body.subarray(0, end + 2); // the CRLF that ended the last line
  const out = new Uint8Array(end + 2);
  out.set(body.subarray(0, end));
  out[end] = CR;
  out[end + 1] = LF;
  return out;
}

/**
 * §3.4.4 relaxed: every run of WSP becomes one SP, WSP at a line end is deleted, empty lines at the
 * end are removed, and a non-empty body ends with CRLF; an empty body stays empty. A line end is a
 * CR LF pair; a lone CR is an ordinary octet (so "a \r" keeps its SP, as it is not before CRLF).
 * Spans that need no change are copied natively; a body that needs no change at all is returned
 * as a view of the input.
 */
export function canonBodyRelaxedBytes(body: Uint8Array): Uint8Array {
  // One flat loop without closures: the engine keeps every variable in a register.
  const n = body.length;
  let out = EMPTY; // allocated at the first change
  let o = 0; // output written so far
  let from = 0; // input [from, i) is an unchanged span not yet copied
  let contentEnd = 0; // output length after the last line that was not empty
  let content = false; // the current line has content
  const view = wordView(body);
  const words = view?.words ?? null;
  const wStart = view?.start ?? 0;
  const wEnd = view?.end ?? 0;
  for (let i = 0; i < n; i++) {
    // Four octets none of which is WSP, CR or another control character: content, unchanged.
    while (words !== null && i >= wStart && i + 4 <= wEnd && ((i - wStart) & 3) === 0 && !hasCtlOrSpace(words[(i - wStart) >> 2] as number)) {
      content = true;
      i += 4;
    }
    if (i >= n) break;
    const c = body[i] as number;
    if (c > SP || (c !== SP && c !== TAB && c !== CR)) {
      content = true;
    } else if (c === CR) {
      if (body[i + 1] === LF) {
        i++;
        if (content) contentEnd = o + (i + 1 - from);
        content = false;
      } else content = true;
    } else {
      let j = i + 1;
      while (j < n && (body[j] === SP || body[j] === TAB)) j++;
      const atLineEnd = j === n || (body[j] === CR && body[j + 1] === LF);
      // WSP at a line end is deleted; a run other than one SP becomes one SP.
      if (atLineEnd || j !== i + 1 || c !== SP) {
        if (out === EMPTY) out = new Uint8Array(n + 2);
        out.set(body.subarray(from, i), o);
        o += i - from;
        if (!atLineEnd) out[o++] = SP;
        from = j;
      }
      i = j - 1;
    }
  }
  if (out === EMPTY && !content) return contentEnd === 0 ? EMPTY : body.subarray(0, contentEnd);
  if (out === EMPTY) out = new Uint8Array(n + 2);
  out.set(body.subarray(from, n), o);
  o += n - from;
  if (content) {
    out[o++] = CR;
    out[o++] = LF;
    contentEnd = o;
  }
  return contentEnd === 0 ? EMPTY : out.subarray(0, contentEnd);
}

export const canonBodyOctets = (body: Uint8Array, c: Canon): Uint8Array => (c === "simple" ? canonBodySimpleBytes(body) : canonBodyRelaxedBytes(body));

export interface BodyHash {
  hash: Uint8Array;
  /** Length of the whole canonical body. */
  available: number;
  /** Octets hashed (l= when it is shorter). */
  used: number;
}

/**
 * The body hashes of one message: each canonical form is computed once and each distinct
 * (canonicalization, hash, l=) digest once, then shared by every signature that asks for it.
 * WebCrypto's digest is one-shot in Node and in workerd, so each canonical form is one buffer
 * digested by one native call (a 1 MB body costs one pass to canonicalize and one to hash).
 */
export class BodyHashes {
  private readonly forms = new Map<Canon, Uint8Array>();
  private readonly digests = new Map<string, Promise<BodyHash>>();

  constructor(private readonly body: Uint8Array) {}

  canonical(c: Canon): Uint8Array {
    let form = this.forms.get(c);
    if (!form) {
      form = canonBodyOctets(this.body, c);
      this.forms.set(c, form);
    }
    return form;
  }

  hash(c: Canon, alg: "sha256" | "sha1", limit: number | null): Promise<BodyHash> {
    const key = `${c}/${alg}/${limit ?? ""}`;
    let p = this.digests.get(key);
    if (!p) {
      const form = this.canonical(c);
      const data = limit === null || limit >= form.length ? form : form.subarray(0, limit);
      p = sha(alg === "sha1" ? "SHA-1" : "SHA-256", data).then((hash) => ({ hash, available: form.length, used: data.length }));
      this.digests.set(key, p);
    }
    return p;
  }
}
