// The character encoding of a report, decided the way XML 1.0 says (§4.3.3 and Appendix F): a byte
// order mark first, else the encoding declaration, else UTF-8. Text is decoded strictly: malformed
// bytes are a fatal error (§4.3.3), never replaced or guessed. No I/O.
import { err, ok, type Result } from "../types";

/** Declared encodings accepted besides UTF-8: the Latin-1 family that old reporters still send. */
const LATIN1 = new Set(["iso-8859-1", "iso8859-1", "latin1", "l1", "windows-1252", "cp1252", "us-ascii", "ascii"]);
/** Bytes read before the encoding must be known (the XML declaration is at the very start). */
const HEAD_BYTES = 256;

export class XmlTextDecoder {
  private decoder: TextDecoder | null = null;
  private head: Uint8Array = new Uint8Array(0);

  /** Decodes the next bytes; an empty string while the head is still being gathered. */
  decode(bytes: Uint8Array, final = false): Result<string, string> {
    if (this.decoder === null) {
      const joined = new Uint8Array(this.head.length + bytes.length);
      joined.set(this.head);
      joined.set(bytes, this.head.length);
      if (joined.length < HEAD_BYTES && !final && !hasDeclarationEnd(joined)) {
        this.head = joined;
        return ok("");
      }
      const chosen = chooseEncoding(joined);
      if (!chosen.ok) return chosen;
      this.decoder = new TextDecoder(chosen.value, { fatal: true, ignoreBOM: false });
      this.head = new Uint8Array(0);
      bytes = joined;
    }
    try {
      return ok(this.decoder.decode(bytes, { stream: !final }));
    } catch {
      return err("the report is not valid text in its encoding (XML 1.0 §4.3.3: a fatal error)");
    }
  }
}

/**
 * The same decision, for the byte scanner: UTF-8 bytes out. A UTF-8 report passes through as it
 * is (after its byte order mark, which a decoder drops too) and the scanner checks it as strictly
 * as a fatal decoder would; other encodings are decoded strictly, then encoded as UTF-8. Leading
 * white space is dropped, as a report may start with some before "<?xml".
 */
export class XmlByteDecoder {
  private mode: "utf-8" | TextDecoder | null = null;
  private head: Uint8Array = new Uint8Array(0);
  private started = false;
  private readonly encoder = new TextEncoder();

  decode(bytes: Uint8Array, final = false): Result<Uint8Array, string> {
    if (this.mode === null) {
      const joined = new Uint8Array(this.head.length + bytes.length);
      joined.set(this.head);
      joined.set(bytes, this.head.length);
      if (joined.length < HEAD_BYTES && !final && !hasDeclarationEnd(joined)) {
        this.head = joined;
        return ok(new Uint8Array(0));
      }
      const chosen = chooseEncoding(joined);
      if (!chosen.ok) return chosen;
      this.mode = chosen.value === "utf-8" ? "utf-8" : new TextDecoder(chosen.value, { fatal: true, ignoreBOM: false });
      this.head = new Uint8Array(0);
      bytes = this.mode === "utf-8" && joined[0] === 0xef && joined[1] === 0xbb && joined[2] === 0xbf ? joined.subarray(3) : joined;
    }
    if (this.mode === "utf-8") return ok(this.started ? bytes : this.skipSpace(bytes));
    let text: string;
    try {
      text = this.mode.decode(bytes, { stream: !final });
    } catch {
      return err("the report is not valid text in its encoding (XML 1.0 §4.3.3: a fatal error)");
    }
    if (!this.started) {
      text = text.replace(/^[\s\uFEFF]+/, "");
      this.started = text.length > 0;
    }
    return ok(this.encoder.encode(text));
  }

  /** True when the input is not UTF-8 and is re-encoded (its decoding errors are reported by `decode`). */
  transcodes(): boolean {
    return this.mode !== null && this.mode !== "utf-8";
  }

  private skipSpace(b: Uint8Array): Uint8Array {
    let i = 0;
    while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x09 || b[i] === 0x0d)) i++;
    this.started = i < b.length;
    return b.subarray(i);
  }
}

const hasDeclarationEnd = (b: Uint8Array): boolean => b.includes(0x3e); // ">"

function chooseEncoding(b: Uint8Array): Result<string, string> {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return ok("utf-8");
  if (b[0] === 0xff && b[1] === 0xfe) return ok("utf-16le");
  if (b[0] === 0xfe && b[1] === 0xff) return ok("utf-16be");
  // UTF-16 without a byte order mark (Appendix F: "<" as 00 3C or 3C 00) is refused: §4.3.3 requires one.
  if ((b[0] === 0x00 && b[1] === 0x3c) || (b[0] === 0x3c && b[1] === 0x00)) return err("UTF-16 without a byte order mark");
  const declared = declaredEncoding(b);
  if (declared === null || declared === "utf-8" || declared === "utf8") return ok("utf-8");
  if (LATIN1.has(declared)) return ok(declared.includes("ascii") ? "utf-8" : "windows-1252");
  if (declared.startsWith("utf-16")) return err("declared UTF-16 without a byte order mark");
  return err(`unsupported encoding "${declared.slice(0, 40)}" (UTF-8, UTF-16 with a byte order mark, or ISO-8859-1)`);
}

/** The encoding="..." of an XML declaration at the start, lower-cased; null without one. */
function declaredEncoding(b: Uint8Array): string | null {
  const text = String.fromCharCode(...b.subarray(0, Math.min(b.length, HEAD_BYTES)));
  const decl = /^<\?xml\s[^>]*?encoding\s*=\s*(["'])([A-Za-z][A-Za-z0-9._-]*)\1/.exec(text);
  return decl?.[2]?.toLowerCase() ?? null;
}
