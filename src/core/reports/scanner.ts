// A streaming XML scanner over UTF-8 bytes for DMARC aggregate reports: elements, text, CDATA,
// comments, processing instructions and the XML declaration, checked for well-formedness as
// XML 1.0 §2 and §3 say (no DTD: those are refused before the scanner sees them). Pure, no I/O.
import { MAX_CONSTRUCT_CHARS, MAX_TAG_CHARS } from "./guard";
import type { ReportError } from "./types";
import { BAD, NEED, isCharRef, isNameChar, isNameStart, isS, literalOk, units, utf8At } from "./xml-chars";

/** What the report reader does with elements and text; an error it returns stops the scan. */
export interface ScanSink {
  /** Set by the sink while it wants the text of the open element (its descendants' included). */
  capturing: boolean;
  /** `attrs` (name → normalized value) only for the root element, which alone carries one we read. */
  open(buf: Uint8Array, start: number, end: number, colon: number, attrs: Map<string, string> | null): ReportError | null;
  close(): ReportError | null;
  text(s: string): ReportError | null;
}

enum St {
  Text,
  Lt,
  Comment,
  CData,
  PiBody,
  Decl,
}

const LT = 0x3c;
const GT = 0x3e;
const AMP = 0x26;
const CR = 0x0d;
const QM = 0x3f;
const DASH = 0x2d;
const RSQB = 0x5d;

// Byte classes inside character data: 0 plain ASCII, 1 needs a look (markup, CR, controls, non-ASCII).
const TEXT_CLASS = new Uint8Array(256);
for (let b = 0; b < 256; b++) TEXT_CLASS[b] = b < 0x20 || b >= 0x7f || b === LT || b === AMP || b === GT ? 1 : 0;
TEXT_CLASS[0x09] = 0;
TEXT_CLASS[0x0a] = 0;

// ASCII name characters (XML 1.0 §2.3 [4], [4a]): 2 may start a name, 1 may only continue one.
const NAME_ASCII = new Uint8Array(128);
for (let b = 0; b < 128; b++) NAME_ASCII[b] = isNameStart(b) ? 2 : isNameChar(b) ? 1 : 0;

/**
 * Short ASCII field text (results, domains, selectors) repeats across records: a small table of the
 * strings made last time per hash slot spares building and collecting most of them again.
 */
const SHORT = new Array<string>(4096).fill("");
function ascii(buf: Uint8Array, a: number, b: number): string {
  const n = b - a;
  let h = n;
  for (let i = a; i < b; i++) h = (Math.imul(h, 31) + (buf[i] as number)) | 0;
  const slot = h & 4095;
  const hit = SHORT[slot] as string;
  if (hit.length === n) {
    let j = 0;
    while (j < n && hit.charCodeAt(j) === buf[a + j]) j++;
    if (j === n) return hit;
  }
  let out = "";
  for (let i = a; i < b; i++) out += String.fromCharCode(buf[i] as number);
  SHORT[slot] = out;
  return out;
}

const ENTITIES: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" });
const S = "[ \\t\\r\\n]";
const q = (v: string): string => `(?:"(${v})"|'(${v})')`;
/** The XML declaration after "<?xml" (XML 1.0 §2.8 [23]-[26], §4.3.3 [80], §2.9 [32]), as the old parser accepted it. */
const DECL = new RegExp(
  `^${S}+version${S}*=${S}*${q("1\\.[0-9]+")}(?:${S}+encoding${S}*=${S}*${q("[A-Za-z][A-Za-z0-9._-]*")})?(?:${S}+standalone${S}*=${S}*${q("yes|no")})?${S}*$`,
);
const utf8 = new TextDecoder("utf-8");

class Stop {
  constructor(readonly error: ReportError) {}
}
const malformed = (message: string): Stop => new Stop({ code: "malformed_xml", message });

/**
 * Why a scanner of our own instead of a general SAX parser (docs/decisions.md D90): it reads bytes,
 * never builds a string it does not hand over, and resolves names without allocating, which makes
 * full validation plus aggregation faster than a bare general-purpose pass. A construct split
 * across chunks is kept from its start (every construct is capped, guard.ts), so memory stays
 * bounded by the caps plus one chunk.
 */
export class XmlScanner {
  private buf: Uint8Array = new Uint8Array(0);
  private own: Uint8Array = new Uint8Array(1 << 16);
  private end = 0;
  private i = 0; // next byte to look at
  private mark = 0; // start of the construct being read: everything before it is done
  private state = St.Text;
  private adj = 0; // bytes minus UTF-16 units in [mark, i): the caps count units (guard.ts)
  private plain = true; // the text so far has no reference, CR or non-ASCII byte
  private body = 0; // start of a comment, CDATA or PI body
  private piTarget = "";
  private xml11 = false;
  private declPossible = true;
  private sawRoot = false;
  private closedRoot = false;
  private names = new Uint8Array(1024);
  private colon = -1; // the first ":" of the last name read
  private wide = false; // a non-ASCII byte was read since the last "<" // raw names of the open elements, for end-tag matching
  private nameEnds: number[] = [];
  error: ReportError | null = null;
  /** Where the chunk being scanned ends, for the caller's look at its rest after a sink error. */
  stoppedAt = -1;

  constructor(private readonly sink: ScanSink) {}

  /** Scans the next bytes. False once the document is refused (`error` says why). */
  write(chunk: Uint8Array): boolean {
    if (this.error !== null) return false;
    if (this.mark >= this.end) {
      this.shift(this.mark);
      this.buf = chunk;
      this.end = chunk.length;
    } else {
      // A construct is pending in `own`: the new bytes go after it.
      const keep = this.end - this.mark;
      this.keep(keep + chunk.length);
      this.own.set(chunk, keep);
      this.end = keep + chunk.length;
    }
    try {
      this.run();
    } catch (e) {
      if (!(e instanceof Stop)) throw e;
      this.error = e.error;
      return false;
    }
    // The caller may reuse its buffer: a pending construct is copied now.
    if (this.mark < this.end && this.buf !== this.own) this.keep(this.end - this.mark);
    return true;
  }

  /** Moves [mark, end) to the start of `own` (grown to `size` if needed) and rebases the positions. */
  private keep(size: number): void {
    const keep = this.end - this.mark;
    if (this.buf === this.own && this.own.length >= size) this.own.copyWithin(0, this.mark, this.end);
    else {
      const dst = this.own.length >= size && this.buf !== this.own ? this.own : new Uint8Array(Math.max(size, this.own.length * 2));
      dst.set(this.buf.subarray(this.mark, this.end));
      this.own = dst;
    }
    this.buf = this.own;
    this.shift(this.mark);
    this.end = keep;
  }

  private shift(by: number): void {
    this.i -= by;
    this.body -= by;
    this.mark -= by;
  }

  /** The bytes after the point where a sink error stopped the scan (XML 1.0 §4.3.3 checks still apply to them). */
  rest(): Uint8Array {
    return this.buf.subarray(Math.max(0, this.stoppedAt), this.end);
  }

  /** End of input: the document must be complete (XML 1.0 §2.1 [1]). */
  finish(): ReportError | null {
    if (this.error !== null) return this.error;
    if (!this.sawRoot) return { code: "malformed_xml", message: "document must contain a root element" };
    if (this.nameEnds.length > 0) return { code: "malformed_xml", message: "unclosed element at the end of the document" };
    if (this.state !== St.Text || this.i < this.end) return { code: "malformed_xml", message: "unexpected end of the document" };
    return null;
  }

  private run(): void {
    for (;;) {
      let more: boolean;
      switch (this.state) {
        case St.Text:
          more = this.sawRoot && !this.closedRoot ? this.textInRoot() : this.textOutside();
          break;
        case St.Lt:
          more = this.markup();
          break;
        case St.Comment:
          more = this.comment();
          break;
        case St.CData:
          more = this.cdata();
          break;
        case St.PiBody:
          more = this.piBody();
          break;
        case St.Decl:
          more = this.decl();
          break;
      }
      if (!more) return;
    }
  }

  /** Character data inside the root (XML 1.0 §2.4 [14]): no "<", "&" only as a reference, no "]]>". */
  private textInRoot(): boolean {
    const buf = this.buf;
    let end = this.end;
    let i = this.i;
    for (;;) {
      while (i < end && TEXT_CLASS[buf[i] as number] === 0) i++;
      if (i >= end) break;
      const b = buf[i] as number;
      if (b === LT) {
        this.i = i;
        this.textCap(i);
        if (this.sink.capturing && i > this.mark) this.emit(this.sink.text(this.decode(this.mark, i, this.plain)), i);
        this.toMarkup(i);
        return true;
      }
      if (b === GT) {
        if (i - 2 >= this.mark && buf[i - 1] === RSQB && buf[i - 2] === RSQB) throw malformed('"]]>" in character data');
        i++;
      } else if (b === AMP) {
        const semi = this.reference(i + 1);
        if (semi < 0) break;
        this.plain = false;
        i = semi + 1;
      } else if (b === CR) {
        this.plain = false;
        i++;
      } else if (b < 0x80) {
        if (b < 0x20 || b === 0x7f) this.badAscii(b);
        i++;
      } else {
        const r = utf8At(buf, i, end);
        if (r === NEED) {
          end = i; // the old decoder held an incomplete sequence back: it is not counted yet
          break;
        }
        i += this.literal(r);
      }
    }
    this.i = i;
    this.textCap(end);
    return false;
  }

  /** Before and after the root only white space, comments and PIs (XML 1.0 §2.1 [1], [27]). */
  private textOutside(): boolean {
    const buf = this.buf;
    let i = this.i;
    while (i < this.end) {
      const b = buf[i] as number;
      if (b === LT) {
        this.i = i;
        this.textCap(i);
        this.toMarkup(i);
        return true;
      }
      if (!isS(b)) throw malformed("text outside the root element");
      i++;
    }
    this.i = i;
    this.textCap(this.end);
    return false;
  }

  private textCap(to: number): void {
    if (to - this.mark - this.adj > MAX_CONSTRUCT_CHARS) throw malformed("text node longer than the safety cap");
  }

  private toMarkup(lt: number): void {
    this.wide = false;
    this.mark = lt;
    this.i = lt + 1;
    this.adj = 0;
    this.state = St.Lt;
  }

  private toText(at: number): void {
    this.mark = at;
    this.i = at;
    this.adj = 0;
    this.plain = true;
    this.state = St.Text;
  }

  /** A literal non-ASCII character: well-formed UTF-8 (§4.3.3) and a Char (§2.2). Returns its byte length. */
  private literal(r: number): number {
    if (r === BAD) throw malformed("the report is not valid text in its encoding (XML 1.0 §4.3.3: a fatal error)");
    const cp = r >>> 3;
    const len = r & 7;
    if (!literalOk(cp, this.xml11)) throw malformed("disallowed character");
    this.adj += len - units(cp);
    this.plain = false;
    this.wide = true;
    return len;
  }

  private badAscii(b: number): void {
    if (b === 0x7f && !this.xml11) return;
    throw malformed("disallowed character");
  }

  /**
   * A reference after "&" (XML 1.0 §4.1 [66], [68]): one of the five predefined entities or a
   * character reference to a Char. Returns the index of its ";", or -1 when more bytes are needed.
   */
  private reference(from: number): number {
    const buf = this.buf;
    const end = this.end;
    if (from >= end) return -1;
    if (buf[from] === 0x23) {
      let j = from + 1;
      if (j >= end) return -1;
      const hex = buf[j] === 0x78;
      if (hex) j++;
      const digits = j;
      let v = 0;
      for (; j < end; j++) {
        const c = buf[j] as number;
        let d: number;
        if (c >= 0x30 && c <= 0x39) d = c - 0x30;
        else if (hex && c >= 0x61 && c <= 0x66) d = c - 0x57;
        else if (hex && c >= 0x41 && c <= 0x46) d = c - 0x37;
        else break;
        v = Math.min(v * (hex ? 16 : 10) + d, 0x110000);
      }
      if (j >= end) return -1;
      if (buf[j] !== 0x3b || j === digits || !isCharRef(v, this.xml11)) throw malformed("malformed character reference");
      return j;
    }
    for (let j = from; j < from + 5; j++) {
      if (j >= end) return -1;
      if (buf[j] === 0x3b) {
        if (ENTITIES[String.fromCharCode(...buf.subarray(from, j))] === undefined)
          throw malformed("undefined entity (only the five predefined ones exist without a DTD)");
        return j;
      }
    }
    throw malformed("undefined entity (only the five predefined ones exist without a DTD)");
  }

  /** Decodes [a, b) as the parser hands text over: references replaced, line ends normalized (XML 1.0 §2.11). */
  private decode(a: number, b: number, plain: boolean, attr = false): string {
    const buf = this.buf;
    if (plain) return b - a <= 32 ? ascii(buf, a, b) : utf8.decode(buf.subarray(a, b));
    const eol = attr ? " " : "\n";
    let out = "";
    let from = a;
    let i = a;
    while (i < b) {
      const c = buf[i] as number;
      if (c === AMP) {
        out += utf8.decode(buf.subarray(from, i));
        const semi = buf.indexOf(0x3b, i);
        out += this.refText(i + 1, semi);
        i = from = semi + 1;
      } else if (c === CR || (attr && (c === 0x09 || c === 0x0a))) {
        out += utf8.decode(buf.subarray(from, i)) + eol;
        if (c !== CR) {
          from = ++i;
          continue;
        }
        i++;
        if (buf[i] === 0x0a && i < b) i++;
        else if (this.xml11 && buf[i] === 0xc2 && buf[i + 1] === 0x85 && i + 1 < b) i += 2;
        from = i;
      } else if (this.xml11 && ((c === 0xc2 && buf[i + 1] === 0x85) || (c === 0xe2 && buf[i + 1] === 0x80 && buf[i + 2] === 0xa8))) {
        // XML 1.1 §2.11: NEL and LINE SEPARATOR are line ends too.
        out += utf8.decode(buf.subarray(from, i)) + eol;
        i += c === 0xc2 ? 2 : 3;
        from = i;
      } else i++;
    }
    return out + utf8.decode(buf.subarray(from, b));
  }

  private refText(a: number, semi: number): string {
    const buf = this.buf;
    if (buf[a] !== 0x23) return ENTITIES[String.fromCharCode(...buf.subarray(a, semi))] ?? "";
    const hex = buf[a + 1] === 0x78;
    const digits = String.fromCharCode(...buf.subarray(a + (hex ? 2 : 1), semi));
    return String.fromCodePoint(Number.parseInt(digits, hex ? 16 : 10));
  }

  /** After "<": an element, an end tag, a comment, CDATA or a PI. Tags are re-read from "<" until complete. */
  private markup(): boolean {
    const buf = this.buf;
    const i = this.mark + 1;
    if (i >= this.end) return this.needTag();
    const c = buf[i] as number;
    const first = this.declPossible;
    if (c !== QM) this.declPossible = false;
    if (c === 0x2f) return this.endTag();
    if (c === 0x21) return this.bang();
    if (c === QM) return this.piTargetRead(first);
    return this.startTag();
  }

  private needTag(): boolean {
    if (this.unitsIn(this.mark + 1, this.end) > MAX_TAG_CHARS) throw malformed("tag longer than the safety cap");
    return false;
  }

  /** UTF-16 units in [a, b): bytes minus continuation bytes, plus one per 4-byte sequence. */
  private unitsIn(a: number, b: number): number {
    const buf = this.buf;
    let n = b - a;
    if (!this.wide) return n;
    for (let j = a; j < b; j++) {
      const x = buf[j] as number;
      if (x >= 0x80) {
        if (x < 0xc0) n--;
        else if (x >= 0xf0) n++;
      }
    }
    return n;
  }

  /** Reads a Name (or NameChar* when `start` is false) from j; returns its end, -1 when more bytes are needed. */
  private name(j: number, start: boolean): number {
    const buf = this.buf;
    const end = this.end;
    let first = start;
    this.colon = -1;
    for (;;) {
      if (j >= end) return -1;
      const b = buf[j] as number;
      if (b < 0x80) {
        const k = NAME_ASCII[b] as number;
        if (k === 2 || (k === 1 && !first)) {
          if (b === 0x3a && this.colon < 0) this.colon = j;
          first = false;
          j++;
          continue;
        }
        if (first) throw malformed("disallowed character in a name");
        return j;
      }
      let cp = b;
      let len = 1;
      if (b >= 0x80) {
        const r = utf8At(buf, j, end);
        if (r === NEED) return -1;
        if (r === BAD) throw malformed("the report is not valid text in its encoding (XML 1.0 §4.3.3: a fatal error)");
        cp = r >>> 3;
        len = r & 7;
        if (!literalOk(cp, this.xml11)) throw malformed("disallowed character");
        this.wide = true;
      }
      if (!(first ? isNameStart(cp) : isNameChar(cp))) {
        if (first) throw malformed("disallowed character in a name");
        return j;
      }
      first = false;
      j += len;
    }
  }

  private skipS(j: number): number {
    while (j < this.end && isS(this.buf[j] as number)) j++;
    return j;
  }

  /** A start tag or empty-element tag (XML 1.0 §3.1 [40], [44]); attributes checked, duplicates refused (WFC Unique Att Spec). */
  private startTag(): boolean {
    const buf = this.buf;
    const end = this.end;
    const nameStart = this.mark + 1;
    let j = this.name(nameStart, true);
    if (j < 0) return this.needTag();
    const nameEnd = j;
    const colon = this.colon;
    if (this.closedRoot) throw malformed("documents may contain only one root");
    let attrNames: string[] | null = null;
    let attrs: Map<string, string> | null = null;
    let needSep = true;
    let selfClosing = false;
    for (;;) {
      if (j >= end) return this.needTag();
      const c = buf[j] as number;
      if (c === GT) {
        j++;
        break;
      }
      if (c === 0x2f) {
        if (j + 1 >= end) return this.needTag();
        if (buf[j + 1] !== GT) throw malformed('"/" in a start tag not followed by ">"');
        selfClosing = true;
        j += 2;
        break;
      }
      if (isS(c)) {
        j = this.skipS(j);
        needSep = false;
        continue;
      }
      if (needSep) throw malformed("disallowed character in a start tag");
      const an = j;
      j = this.name(j, true);
      if (j < 0) return this.needTag();
      const ae = j;
      j = this.skipS(j);
      if (j >= end) return this.needTag();
      if (buf[j] !== 0x3d) throw malformed("attribute without a value");
      j = this.skipS(j + 1);
      if (j >= end) return this.needTag();
      const quote = buf[j] as number;
      if (quote !== 0x22 && quote !== 0x27) throw malformed("unquoted attribute value");
      const vs = ++j;
      let plain = true;
      for (;;) {
        if (j >= end) return this.needTag();
        const b = buf[j] as number;
        if (b === quote) break;
        if (b === LT) throw malformed('"<" in an attribute value');
        if (b === AMP) {
          const semi = this.reference(j + 1);
          if (semi < 0) return this.needTag();
          plain = false;
          j = semi + 1;
        } else if (b < 0x20) {
          if (b !== 0x09 && b !== 0x0a && b !== CR) throw malformed("disallowed character");
          plain = false;
          j++;
        } else if (b >= 0x7f) {
          if (b === 0x7f) {
            this.badAscii(b);
            j++;
            continue;
          }
          const r = utf8At(buf, j, end);
          if (r === NEED) return this.needTag();
          j += this.literal(r);
        } else j++;
      }
      const ve = j++;
      const an2 = utf8.decode(buf.subarray(an, ae));
      attrNames ??= [];
      if (attrNames.includes(an2)) throw malformed(`duplicate attribute ${an2.slice(0, 64)}`);
      attrNames.push(an2);
      if (this.nameEnds.length === 0) {
        attrs ??= new Map();
        attrs.set(an2, this.attrValue(vs, ve, plain));
      }
      needSep = true;
    }
    if (this.unitsIn(this.mark + 1, j) > MAX_TAG_CHARS) throw malformed("tag longer than the safety cap");
    this.pushName(nameStart, nameEnd);
    this.sawRoot = true;
    this.emit(this.sink.open(buf, nameStart, nameEnd, colon, attrs), j);
    if (selfClosing) {
      this.popName();
      this.emit(this.sink.close(), j);
      if (this.nameEnds.length === 0) this.closedRoot = true;
    }
    this.toText(j);
    return true;
  }

  /** Attribute-value normalization (XML 1.0 §3.3.3): references replaced, white space characters become spaces. */
  private attrValue(a: number, b: number, plain: boolean): string {
    return plain ? utf8.decode(this.buf.subarray(a, b)) : this.decode(a, b, false, true);
  }

  private pushName(a: number, b: number): void {
    const at = this.nameEnds.length === 0 ? 0 : (this.nameEnds[this.nameEnds.length - 1] as number);
    const len = b - a;
    if (this.names.length < at + len) {
      const grown = new Uint8Array(Math.max(this.names.length * 2, at + len));
      grown.set(this.names);
      this.names = grown;
    }
    const names = this.names;
    const buf = this.buf;
    for (let k = 0; k < len; k++) names[at + k] = buf[a + k] as number;
    this.nameEnds.push(at + len);
  }

  private popName(): void {
    this.nameEnds.pop();
  }

  /** An end tag (XML 1.0 §3.1 [42]) must match the open element's name (WFC Element Type Match). */
  private endTag(): boolean {
    const buf = this.buf;
    const a = this.mark + 2;
    let j = this.name(a, false);
    if (j < 0) return this.needTag();
    const b = j;
    j = this.skipS(j);
    if (j >= this.end) return this.needTag();
    if (buf[j] !== GT) throw malformed("disallowed character in an end tag");
    j++;
    if (this.unitsIn(this.mark + 1, j) > MAX_TAG_CHARS) throw malformed("tag longer than the safety cap");
    if (b === a) throw malformed("empty end tag");
    const depth = this.nameEnds.length;
    if (depth === 0) throw malformed("end tag without a start tag");
    const top = this.nameEnds[depth - 1] as number;
    const from = depth === 1 ? 0 : (this.nameEnds[depth - 2] as number);
    let same = top - from === b - a;
    for (let k = 0; same && k < b - a; k++) same = this.names[from + k] === buf[a + k];
    this.popName();
    // The innermost element closes either way, as a SAX parser reports it before the mismatch.
    this.emit(this.sink.close(), j);
    if (!same) throw malformed("end tag does not match the start tag");
    if (this.nameEnds.length === 0) this.closedRoot = true;
    this.toText(j);
    return true;
  }

  /** "<!": a comment or CDATA section; anything else (a DTD is refused earlier) is malformed. */
  private bang(): boolean {
    const buf = this.buf;
    const at = this.mark + 2;
    const want = buf[at] === DASH ? "--" : "[CDATA[";
    for (let k = 0; k < want.length; k++) {
      if (at + k >= this.end) return this.needTag();
      if (buf[at + k] !== want.charCodeAt(k)) throw malformed('"<!" that starts no comment or CDATA section');
    }
    this.body = at + want.length;
    this.i = this.body;
    if (want === "--") this.state = St.Comment;
    else {
      if (!this.sawRoot || this.closedRoot) throw malformed("CDATA outside the root element");
      this.state = St.CData;
    }
    return true;
  }

  /** Checks the characters of a comment, CDATA section or PI up to its terminator's last character. */
  private scanTo(stop: number): number {
    const buf = this.buf;
    const end = this.end;
    let i = this.i;
    while (i < end) {
      const b = buf[i] as number;
      if (b === stop) return i;
      if (b < 0x20 || b >= 0x7f) {
        if (b >= 0x80) {
          const r = utf8At(buf, i, end);
          if (r === NEED) break;
          i += this.literal(r);
          continue;
        }
        if (b === CR) this.plain = false;
        else if (b !== 0x09 && b !== 0x0a) this.badAscii(b);
      }
      i++;
    }
    this.i = i;
    if (i - this.mark - 1 - this.adj > MAX_CONSTRUCT_CHARS) throw malformed("construct longer than the safety cap");
    return -1;
  }

  private constructCap(gt: number, what: string): void {
    if (gt - this.mark - 1 - this.adj > MAX_CONSTRUCT_CHARS) throw malformed(`${what} longer than the safety cap`);
  }

  /** A comment (XML 1.0 §2.5 [15]): "--" only as part of "-->". */
  private comment(): boolean {
    for (;;) {
      const d = this.scanTo(DASH);
      if (d < 0) return false;
      if (d - 1 >= this.body && this.buf[d - 1] === DASH) {
        if (d + 1 >= this.end) {
          this.i = d;
          return false;
        }
        if (this.buf[d + 1] !== GT) throw malformed('"--" inside a comment');
        this.constructCap(d + 1, "comment");
        this.toText(d + 2);
        return true;
      }
      this.i = d + 1;
    }
  }

  /** A CDATA section (XML 1.0 §2.7): its text, line ends normalized, goes to the element. */
  private cdata(): boolean {
    for (;;) {
      const g = this.scanTo(GT);
      if (g < 0) return false;
      if (g - 2 >= this.body && this.buf[g - 1] === RSQB && this.buf[g - 2] === RSQB) {
        this.constructCap(g, "CDATA section");
        if (this.sink.capturing) this.emit(this.sink.text(this.decode(this.body, g - 2, this.plain)), g + 1);
        this.toText(g + 1);
        return true;
      }
      this.i = g + 1;
    }
  }

  /** A PI target (XML 1.0 §2.6 [16], [17]): "xml" starts the declaration, which must come first. */
  private piTargetRead(first: boolean): boolean {
    const a = this.mark + 2;
    const j = this.name(a, true);
    if (j < 0) return this.needTag();
    const t = this.buf[j] as number;
    if (t !== QM && !isS(t)) throw malformed("disallowed character in a processing instruction target");
    this.piTarget = utf8.decode(this.buf.subarray(a, j));
    this.body = j;
    this.i = j;
    this.declPossible = false;
    if (this.piTarget === "xml") {
      if (!first) throw malformed("the XML declaration must be at the start of the document");
      this.state = St.Decl;
    } else this.state = St.PiBody;
    return true;
  }

  private piBody(): boolean {
    for (;;) {
      const g = this.scanTo(GT);
      if (g < 0) return false;
      if (g - 1 >= this.body && this.buf[g - 1] === QM) {
        this.constructCap(g, "processing instruction");
        if (this.piTarget.toLowerCase() === "xml") throw malformed("a processing instruction may not be named xml");
        this.toText(g + 1);
        return true;
      }
      this.i = g + 1;
    }
  }

  /** The XML declaration ends at its first "?", which must be followed by ">". */
  private decl(): boolean {
    const qm = this.scanTo(QM);
    if (qm < 0) return false;
    if (qm + 1 >= this.end) {
      this.i = qm;
      return false;
    }
    if (this.buf[qm + 1] !== GT) throw malformed('"?" inside the XML declaration');
    this.constructCap(qm + 1, "processing instruction");
    const m = DECL.exec(utf8.decode(this.buf.subarray(this.mark + 5, qm)));
    if (m === null) throw malformed("malformed XML declaration");
    this.xml11 = (m[1] ?? m[2]) !== "1.0";
    this.toText(qm + 2);
    return true;
  }

  /** A sink error stops the scan; `stoppedAt` marks the rest of the chunk for the caller. */
  private emit(e: ReportError | null, after: number): void {
    if (e === null) return;
    this.stoppedAt = after;
    throw new Stop(e);
  }
}
