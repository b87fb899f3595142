// Streaming DMARC aggregate-report parser: bytes in, one callback per <record>. Pure, no I/O.
import { err, ok, type Result } from "../types";
import { ReportBuilder, ROOT, UNKNOWN, type PathNode } from "./builder";
import { XmlByteDecoder } from "./encoding";
import { MAX_FIELD_CHARS } from "./fields";
import { XmlGuard } from "./guard";
import { type ScanSink, XmlScanner } from "./scanner";
import type { PolicyPublished, ReportError, ReportErrorCode, ReportMetadata, ReportRecord, SchemaVersion } from "./types";

/** RFC 9990 §4 (XML schema) target namespace; RFC 7489 Appendix C reports have none (or a draft one). */
export const DMARC2_NS = "urn:ietf:params:xml:ns:dmarc-2.0";
/** Reports nest five deep; extensions a little more. Deeper is hostile. */
export const MAX_DEPTH = 32;

export interface ParsedDocument {
  version: SchemaVersion;
  metadata: ReportMetadata;
  policy: PolicyPublished;
  records: number;
}

const utf8 = new TextDecoder("utf-8");

/**
 * Records are handed to `onRecord` as each </record> closes and never kept, so memory stays
 * bounded by one record plus what the callback retains. Text is only decoded inside the leaf
 * elements we read (docs/decisions.md D90).
 */
export class ReportParser implements ScanSink {
  private readonly decoder = new XmlByteDecoder();
  private readonly scanner = new XmlScanner(this);
  private readonly builder: ReportBuilder;
  private readonly stack: PathNode[] = [];
  private capture: PathNode | null = null;
  private captured = "";
  private full = false;
  private error: ReportError | null = null;
  private ns2 = false;
  private dtdTail = new Uint8Array(0);
  capturing = false;

  constructor(onRecord: (r: ReportRecord) => void, maxRecords?: number) {
    this.builder = new ReportBuilder(onRecord, maxRecords);
  }

  /** Feeds the next bytes. False once the document is refused (see `end()` for why). */
  write(bytes: Uint8Array): boolean {
    if (this.error !== null) return false;
    const data = this.decoder.decode(bytes);
    if (!data.ok) return this.fail("malformed_xml", data.error);
    return this.feed(data.value);
  }

  end(): Result<ParsedDocument, ReportError> {
    if (this.error === null) {
      const rest = this.decoder.decode(new Uint8Array(0), true);
      if (!rest.ok) this.fail("malformed_xml", rest.error);
      else if (this.feed(rest.value)) this.error = this.scanner.finish();
    }
    if (this.error !== null) return err(this.error);
    const done = this.builder.finish();
    if (!done.ok) return done;
    const version: SchemaVersion = this.ns2 || this.builder.uses9990() ? "2.0" : "1.0";
    return ok({ version, ...done.value, records: this.builder.records });
  }

  private feed(bytes: Uint8Array): boolean {
    if (bytes.length === 0) return true;
    // docs/decisions.md D17: a DOCTYPE or ENTITY anywhere, even split across chunks, refuses the
    // report before any of this chunk is read.
    if (hasDtd(this.dtdTail, bytes)) {
      // Undecodable bytes in the same chunk were refused first (the whole chunk was decoded before the screen).
      if (!this.decoder.transcodes() && !validUtf8(bytes))
        return this.fail("malformed_xml", "the report is not valid text in its encoding (XML 1.0 §4.3.3: a fatal error)");
      return this.fail("forbidden_dtd", "DOCTYPE/ENTITY declarations are refused");
    }
    this.dtdTail = (bytes.length >= 8 ? bytes : concat(this.dtdTail, bytes)).slice(-8);
    if (this.scanner.write(bytes)) return true;
    const e = this.scanner.error as ReportError;
    // A report error (not a syntax one) stops the scan mid-chunk; the safety caps and strict
    // decoding still judge the whole chunk first, as they always did (guard.ts).
    this.error = e.code === "malformed_xml" ? e : (restRefused(this.scanner.rest()) ?? e);
    return false;
  }

  private fail(code: ReportErrorCode, message: string): false {
    this.error ??= { code, message };
    return false;
  }

  open(buf: Uint8Array, start: number, end: number, colon: number, attrs: Map<string, string> | null): ReportError | null {
    const stack = this.stack;
    if (stack.length >= MAX_DEPTH) return { code: "malformed_xml", message: `elements nested deeper than ${MAX_DEPTH}` };
    if (stack.length === 0) {
      const name = utf8.decode(buf.subarray(start, end));
      const c = name.indexOf(":");
      if (name.slice(c + 1).toLowerCase() !== "feedback") return { code: "not_a_report", message: `root element is <${name.slice(0, 64)}>, not <feedback>` };
      const nsAttr = c > 0 ? `xmlns:${name.slice(0, c)}` : "xmlns";
      this.ns2 = attrs?.get(nsAttr)?.trim() === DMARC2_NS;
      stack.push(ROOT);
      return null;
    }
    const parent = stack[stack.length - 1] as PathNode;
    const n = parent === UNKNOWN || parent.kidList.length === 0 ? UNKNOWN : child(parent, buf, colon < 0 ? start : colon + 1, end);
    stack.push(n);
    if (n === UNKNOWN) return null;
    this.builder.open(n);
    if (this.capture === null && n.leaf) {
      this.capture = n;
      this.captured = "";
      this.full = false;
      this.capturing = true;
    }
    return null;
  }

  text(t: string): ReportError | null {
    if (this.full) return null;
    this.captured += t;
    if (this.captured.length <= MAX_FIELD_CHARS) return null;
    // Free text (comments, human_result, errors) is cut; an identifier this long is not real.
    if (!this.capture?.free) return { code: "malformed_xml", message: `<${this.capture?.path}> longer than ${MAX_FIELD_CHARS} characters` };
    this.captured = this.captured.slice(0, MAX_FIELD_CHARS);
    this.full = true;
    return null;
  }

  close(): ReportError | null {
    const n = this.stack.pop() ?? UNKNOWN;
    if (n === UNKNOWN || n === ROOT) return null;
    if (this.capture === n) {
      this.capture = null;
      this.capturing = false;
      this.builder.leaf(n, this.captured);
    }
    return this.builder.close(n);
  }
}

/** The known child named by the local name in buf[a, b), ASCII case ignored (reporters vary); else UNKNOWN. */
function child(parent: PathNode, buf: Uint8Array, a: number, b: number): PathNode {
  const len = b - a;
  for (const k of parent.kidList) {
    const name = k.name;
    if (name.length !== len) continue;
    let j = 0;
    for (; j < len; j++) {
      let c = buf[a + j] as number;
      if (c >= 0x41 && c <= 0x5a) c |= 0x20;
      else if (c >= 0x80) return slowChild(parent, buf, a, b);
      if (c !== name[j]) break;
    }
    if (j === len) return k.node;
  }
  for (let j = a; j < b; j++) if ((buf[j] as number) >= 0x80) return slowChild(parent, buf, a, b);
  return UNKNOWN;
}

/** Non-ASCII names: Unicode lower-casing can still yield an ASCII name (U+212A KELVIN SIGN is "k"). */
function slowChild(parent: PathNode, buf: Uint8Array, a: number, b: number): PathNode {
  return parent.kids.get(utf8.decode(buf.subarray(a, b)).toLowerCase()) ?? UNKNOWN;
}

const DTD_WORDS = ["doctype", "entity"].map((w) => new TextEncoder().encode(w));

/** "<!doctype" or "<!entity" in any ASCII case, in `tail` (the previous chunk's last bytes) + `bytes`. */
function hasDtd(tail: Uint8Array, bytes: Uint8Array): boolean {
  const joined = tail.length === 0 ? bytes : concat(tail, bytes.subarray(0, 8));
  if (joined !== bytes && dtdAt(joined)) return true;
  return dtdAt(bytes);
}

function dtdAt(b: Uint8Array): boolean {
  for (let i = b.indexOf(0x21); i >= 0; i = b.indexOf(0x21, i + 1)) {
    if (i === 0 || b[i - 1] !== 0x3c) continue;
    for (const w of DTD_WORDS) {
      let k = 0;
      while (k < w.length && ((b[i + 1 + k] as number) | 0x20) === w[k]) k++;
      if (k === w.length) return true;
    }
  }
  return false;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Whether a chunk is well-formed UTF-8, from its first character (one begun in the previous chunk is not judged here). */
function validUtf8(b: Uint8Array): boolean {
  let i = 0;
  while (i < b.length && i < 3 && ((b[i] as number) & 0xc0) === 0x80) i++;
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(b.subarray(i), { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** The rest of a chunk after a report error: a malformed byte or a construct past a cap wins. */
function restRefused(rest: Uint8Array): ReportError | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(rest, { stream: true });
  } catch {
    return { code: "malformed_xml", message: "the report is not valid text in its encoding (XML 1.0 §4.3.3: a fatal error)" };
  }
  return new XmlGuard().check(text);
}
